/**
 * The contract's zod schemas of E7 and E8, for the reporters. They are asked only when the quick
 * check (contract/ingest-check.ts) does not say yes, so a step that sends a valid body never
 * evaluates zod: the bundler keeps these modules in the same file ("eager") and runs them at the
 * first call.
 */
export const loadContractSchemas = () => import(/* webpackMode: "eager" */ './schemas.js');
