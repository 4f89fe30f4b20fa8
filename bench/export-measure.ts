import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A process's resident memory, in MB (Linux's /proc). */
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * Reads a whole export from `url` as a client would, while sampling the server's (`pid`) memory
 * every 10 ms: what it sent, how long it took, and how far the server's RSS rose above where it
 * was before (issue 29: constant memory whatever the size); and the sha256 of the bytes it sent,
 * to check a round trip byte for byte.
 */
export async function measureExport(url: string, headers: Record<string, string>, pid: number) {
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 10);
  const began = performance.now();
  let bytes = 0;
  let lines = 0;
  const hash = createHash('sha256');
  try {
    const res = await fetch(url, { headers });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      hash.update(value);
      for (const byte of value) if (byte === 10) lines += 1;
    }
  } finally {
    clearInterval(sampler);
  }
  // `figures` as both export benchmarks print them.
  return {
    lines,
    sha256: hash.digest('hex'),
    figures: {
      exportMb: +(bytes / 1e6).toFixed(1),
      exportS: +((performance.now() - began) / 1000).toFixed(1),
      rssBeforeMb: +before.toFixed(1),
      rssPeakMb: +peak.toFixed(1),
      rssGrowthMb: +(peak - before).toFixed(1),
    },
  };
}
