import * as z from 'zod/mini';
import { holdsNul, NUL_PROBLEM } from './nul.js';

// The NUL rule itself (and its helpers without zod) is in nul.ts; this adds its zod checks.
export * from './nul.js';

/** A zod check of a string: the NUL rule of nul.ts. */
export const noNul = z.refine<string>((text) => !holdsNul(text), { message: NUL_PROBLEM });

/** A string a request may carry: any text but NUL. */
export const plainString = () => z.string().check(noNul);
