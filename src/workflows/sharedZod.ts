/**
 * zod, loaded once per worker and shared by every cached session instead of once per session: the
 * SDK gives each workflow its own copy of every module of the bundle, and zod's code and tables are
 * about 1 MB of each session's memory (DESIGN §8 "A fleet at real model latency"). The worker
 * preloads this module (`WORKFLOW_BUNDLER_OPTIONS.preloadModules`) and then freezes what it loaded,
 * so zod's settings that it fills in lazily, at the first schema of a kind (its English messages,
 * the memoizer of container schemas), are filled in here, before the freeze. Sessions still build
 * their own schemas: those carry lazily defined properties and could not be frozen.
 */
import { z } from 'zod';

z.array(z.string());
