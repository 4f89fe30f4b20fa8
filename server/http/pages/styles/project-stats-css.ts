/**
 * The statistics page's own styles, on top of the dashboard's: the filters, build-health bars,
 * charts and their tooltip, the timeline. Status colours keep a 3:1 contrast on the surface in
 * both schemes (they carry meaning next to text that says the same).
 */
export const PROJECT_STATS_CSS = `:root{--st-success:#1a7f37;--st-failure:#cf222e;--st-cancelled:#8c959f;--st-other:#8250df;--chart-p95:#bc4c00;--chart-band:rgba(10,91,181,.14)}
@media (prefers-color-scheme:dark){:root{--st-success:#3fb950;--st-failure:#f85149;--st-cancelled:#8b949e;--st-other:#a371f7;--chart-p95:#f0883e;--chart-band:rgba(74,158,255,.2)}}
.stats>.card,.stats>section>.card{margin:0 0 1.25rem}
.filters{display:flex;flex-wrap:wrap;gap:.75rem 1rem;align-items:flex-end;margin-bottom:1.25rem}
.filters .field{margin:0;min-width:10rem}
.filters .actions{margin:0}
.section-title{margin:1.5rem 0 .75rem}
.health-head{display:flex;justify-content:space-between;align-items:baseline;flex-wrap:wrap;gap:.5rem}
.health-rate{margin:0;display:flex;gap:.6rem;align-items:baseline}
.health-bars{display:block;width:100%;height:120px;margin:.75rem 0 0;background:var(--surface-2);border-radius:6px}
.time-axis{position:relative;height:1.4rem;margin:0 0 .5rem;border-top:1px solid var(--border);color:var(--muted);font-size:.8rem}
.time-axis time{position:absolute;top:.2rem;transform:translateX(-50%);white-space:nowrap}
.time-axis time:nth-child(1){left:0}.time-axis time:nth-child(2){left:25%}.time-axis time:nth-child(3){left:50%}.time-axis time:nth-child(4){left:75%}.time-axis time:nth-child(5){left:100%}
.time-axis time:first-child{transform:none}.time-axis time:last-child{transform:translateX(-100%)}
@media (max-width:600px){.time-axis time:nth-child(even){display:none}}
.chart-legend{display:flex;flex-wrap:wrap;gap:.4rem 1rem;list-style:none;margin:.4rem 0 0;padding:0;color:var(--muted);font-size:.8rem}
.chart-legend li{display:flex;align-items:center;gap:.35rem}
.swatch{display:inline-block;width:1.2rem;height:0}
.swatch-p50{border-top:2px solid var(--accent)}.swatch-p95{border-top:2px dashed var(--chart-p95)}
.swatch-band{height:.6rem;background:var(--chart-band)}
.health-legend{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0;color:var(--muted);font-size:.9rem}
.health-legend li{display:flex;align-items:center;gap:.35rem}
.bar-success{fill:var(--st-success)}.bar-failure{fill:var(--st-failure)}.bar-cancelled{fill:var(--st-cancelled)}.bar-other{fill:var(--st-other)}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,30rem),1fr));gap:1rem;margin-bottom:1rem}
.charts>.card.chart-card{margin:0}
.chart-card figcaption{display:flex;justify-content:space-between;gap:.75rem;flex-wrap:wrap;margin-bottom:.5rem}
.chart{position:relative;min-height:220px}
.chart-tooltip{position:absolute;z-index:2;pointer-events:none;background:var(--surface);color:var(--text);border:1px solid var(--border);border-radius:6px;padding:.3rem .5rem;font-size:.8rem;box-shadow:0 2px 8px rgba(0,0,0,.15);white-space:normal;overflow-wrap:anywhere;width:max-content;max-width:22rem}
.timeline{list-style:none;margin:0;padding:0}
.timeline li{display:flex;gap:.75rem;padding:.7rem 0;border-top:1px solid var(--border)}
.timeline li:first-child{border-top:0}
.swatch{flex:none;margin-top:.4rem}
.event-body p{margin:0}
.event-title{display:flex;flex-wrap:wrap;gap:.5rem;align-items:baseline}
.event-links{display:flex;flex-wrap:wrap;gap:.75rem;font-size:.9rem;margin-top:.2rem}
.status-success{color:var(--ok)}.status-failure{color:var(--danger)}.status-cancelled,.status-other{color:var(--muted)}
.notification{color:var(--muted)}.notification-failed{color:var(--danger)}
.branch{background:var(--surface-2);padding:0 .35rem;border-radius:4px}
.pager{display:flex;gap:1rem;margin-top:.75rem}
.share-links{list-style:none;padding:0;margin:0 0 1rem}
.share-links li{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap;padding:.4rem 0}
.copy-row{display:flex;gap:.5rem}
.copy-row input{flex:1;min-width:0}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,9.5rem),1fr));gap:.75rem 1rem;margin:0}
.figure{margin:0}.figure dd{margin:0}
.change{font-size:.85rem}.change-good{color:var(--ok)}.change-bad{color:var(--danger)}.change-same,.change-none{color:var(--muted)}
.duration-key,.mark-types{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:.5rem}
.duration-key input,.mark-types input{max-width:16rem}
button.sort{all:unset;cursor:pointer;font-weight:600}
button.sort:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
th[aria-sort=ascending] button.sort::after{content:' ▲'}th[aria-sort=descending] button.sort::after{content:' ▼'}
tr[aria-current=true]{background:var(--surface-2)}
.filter-note{margin:.25rem 0 .75rem}
.chart-mark{position:absolute;top:0;bottom:0;width:9px;margin-left:-4px;z-index:1;cursor:help}
.chart-mark::before{content:'';position:absolute;left:4px;top:0;bottom:0;border-left:1px solid var(--muted)}
.chart-mark.mark-alert::before{border-left:2px solid var(--danger)}
.chart-mark.mark-change::before{border-left:1px dashed var(--chart-p95)}
.health-mark line{stroke:var(--text);stroke-width:1;vector-effect:non-scaling-stroke}
.pin-tag{margin-left:.4rem;padding:0 .35rem;border:1px solid var(--border);border-radius:.6rem;font-size:.75rem;color:var(--muted)}
.key-display{white-space:nowrap}

`;
