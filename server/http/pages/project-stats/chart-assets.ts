import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AssetRegistry } from '../assets.js';
import { copyScript } from '../copy-script.js';
import type { PageAssets } from '../dashboard/views/dashboard-layout.js';
import { PROJECT_STATS_CSS } from '../styles/project-stats-css.js';
import { STATS_EDGES_CSS } from '../styles/stats-edges-css.js';
import { chartsScript } from './charts-script.js';

const require = createRequire(import.meta.url);
const uplotFile = (name: string) => readFileSync(require.resolve(`uplot/dist/${name}`), 'utf8');

/**
 * The statistics page's files, served by us (no CDN): uPlot (about 50 kB, the smallest well-kept
 * chart library that draws a time series with a band and zooms), its stylesheet, ours, and the
 * script that draws the charts (and fetches uPlot when the first chart comes near the viewport).
 */
export function chartAssets(assets: AssetRegistry): PageAssets {
  const js = 'text/javascript; charset=utf-8';
  const css = 'text/css; charset=utf-8';
  const uplot = assets.add('uplot', 'js', js, uplotFile('uPlot.iife.min.js'));
  return {
    styles: [
      assets.add('uplot', 'css', css, uplotFile('uPlot.min.css')),
      assets.add('project-stats', 'css', css, PROJECT_STATS_CSS + STATS_EDGES_CSS),
    ],
    scripts: [
      // uPlot is not among the page's scripts: the chart script loads it when a chart nears view.
      assets.add('project-charts', 'js', js, chartsScript(uplot)),
      copyScript(assets),
    ],
  };
}
