/**
 * A benchmark's series key: `bench/` and its name. The reporters send each benchmark in
 * `payload.benchmarks` and declare its unit and direction under this key; the server reads each
 * entry as this series (server/domain/record-facts.ts). Payload paths are joined with `.`, so a
 * benchmark can never be taken for a payload path (docs/benchmarks.md).
 */
export const benchmarkKey = (name: string) => `bench/${name}`;
