// jstat ships no types: the functions of it the verdicts use.
declare module 'jstat' {
  interface ContinuousDistribution {
    cdf(x: number, ...parameters: number[]): number;
    inv(p: number, ...parameters: number[]): number;
  }
  export const jStat: {
    normal: ContinuousDistribution;
    studentt: ContinuousDistribution;
  };
  const jstat: { jStat: typeof jStat };
  export default jstat;
}
