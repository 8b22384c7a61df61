/** The thread the PostgreSQL store counts its large messages on (`RequestThread`). */
import { parentPort } from 'node:worker_threads';
import type { ChatMessage } from '../model/messages';
import { countMessageTokens } from '../model/tokens';
import { serveRequests } from './requestThread';

serveRequests<ChatMessage, number>(parentPort, countMessageTokens);
