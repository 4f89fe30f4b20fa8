/**
 * The contract's zod schemas of E7 and E8, for the reporters. They are asked only when the quick
 * check (contract/ingest-check.ts) does not say yes, so a step that sends a valid body never
 * evaluates zod, nor even compiles it: the bundler puts these modules in a chunk of their own,
 * which scripts/bundle.js keeps in the same file as a string compiled at the first call.
 */
export const loadContractSchemas = () => import('./schemas.js');
