/**
 * The JUnit reader (sax, tinyglobby), evaluated only when reports are asked for: the bundler keeps
 * it in the same file ("eager") but runs its modules at the first call, not at start-up.
 */
export const loadJUnit = () => import(/* webpackMode: "eager" */ './junit.js');
