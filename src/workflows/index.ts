/** Entry point of the workflow bundle: every workflow type the worker registers. */
// Also preloaded and shared by every session; importing it here puts it in the bundle's fingerprint.
import './sharedZod';

export { agentSession } from './agentSession';
