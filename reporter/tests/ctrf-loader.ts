/** The CTRF reader, in a chunk of its own like the JUnit reader (junit-loader.ts). */
export const loadCtrf = () => import('./ctrf.js');
