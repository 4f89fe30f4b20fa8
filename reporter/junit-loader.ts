/**
 * The JUnit reader (sax, tinyglobby), compiled and evaluated only when reports are asked for: the
 * bundler puts it in a chunk of its own, which scripts/bundle.js keeps in the same file as a
 * string compiled at the first call.
 */
export const loadJUnit = () => import('./junit.js');
