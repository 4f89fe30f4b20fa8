/**
 * The statistics page's styles for a new share link's panel (its badges and their Markdown) and
 * for small screens: on a phone the charts are shorter, their cards tighter and the grid one
 * column (the chart script reads the same breakpoint for the charts' height).
 */
export const STATS_EDGES_CSS = `
.new-share-link h2{font-size:1rem;color:inherit}
.new-share-link .badges{margin-top:.5rem;color:var(--text)}
.new-share-link summary{cursor:pointer;font-weight:600}
.badge-list{list-style:none;padding:0;margin:.5rem 0}
.badge-list li{display:grid;gap:.3rem;padding:.4rem 0;border-top:1px solid var(--border)}
.badge-list li:first-child{border-top:0}
.badge-list img{height:20px;width:auto;justify-self:start}
.badge-list input{font-family:var(--mono);font-size:.85rem;width:100%;padding:.3rem .5rem;border:1px solid var(--border);border-radius:6px;background:var(--surface-2);color:var(--text)}
@media (max-width:40rem){
.stats>.card,.stats>section>.card{margin:0 0 .75rem}
.charts{gap:.6rem}
.charts>.card.chart-card{padding:.6rem .6rem .4rem}
.chart-card figcaption{margin-bottom:.25rem;font-size:.85rem;gap:.25rem .75rem}
.chart{min-height:150px}
.chart-legend{margin:.15rem 0 0;font-size:.75rem;line-height:1.2;flex-wrap:nowrap}
.chart-legend li{position:relative}
.chart-legend .lg{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.filters{gap:.5rem .75rem}
.filters .field{min-width:8rem;flex:1}
}
`;
