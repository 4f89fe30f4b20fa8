import type { Theme } from '../../../domain/themes.js';
import { FONT_STACKS } from './fonts.js';

/**
 * One stylesheet per theme: the theme's variables, then the page's layout. No inline styles
 * anywhere (the CSP allows stylesheets of ours only).
 */
export function publicPageCss(theme: Theme): string {
  const p = theme.palette;
  return `:root{color-scheme:${theme.scheme};--bg:${p.background};--surface:${p.surface};--border:${p.border};--text:${p.text};--muted:${p.muted};--link:${p.link};--accent:${p.accent};--accent-text:${p.accentText};--radius:${theme.radius}px;--font:${FONT_STACKS[theme.font]}}
${LAYOUT}`;
}

const LAYOUT = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font-family:var(--font);font-size:1.0625rem;line-height:1.6;display:flex;flex-direction:column;align-items:center}
a{color:var(--link);text-underline-offset:.18em}
a:focus-visible{outline:3px solid var(--link);outline-offset:3px;border-radius:4px}
.page{width:100%;max-width:40rem;padding:3.5rem 1.25rem 2rem;flex:1}
.profile{text-align:center;margin-bottom:2.25rem}
.avatar{display:block;width:96px;height:96px;margin:0 auto 1.1rem;border-radius:50%;object-fit:cover;background:var(--surface);border:3px solid var(--surface);box-shadow:0 0 0 1px var(--border)}
h1{font-size:2rem;line-height:1.2;margin:0 0 .35rem;letter-spacing:-.01em;overflow-wrap:anywhere}
.meta{display:flex;flex-wrap:wrap;justify-content:center;gap:.5rem;margin:.6rem 0 0;padding:0;list-style:none;color:var(--muted);font-size:.95rem}
.meta li{display:inline-flex;align-items:center;gap:.35rem;padding:.2rem .7rem;border:1px solid var(--border);border-radius:999px;background:var(--surface)}
.meta svg{width:1em;height:1em;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.bio{margin:1.2rem auto 0;max-width:34rem;white-space:pre-line;overflow-wrap:anywhere}
.contact{display:inline-flex;align-items:center;gap:.5rem;margin-top:1.4rem;padding:.6rem 1.2rem;border-radius:999px;background:var(--accent);color:var(--accent-text);font-weight:600;text-decoration:none;overflow-wrap:anywhere}
.contact:hover{filter:brightness(1.08)}
.contact svg{width:1.1em;height:1.1em;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.blocks{list-style:none;margin:0;padding:0;display:grid;gap:.85rem}
.block{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius)}
.block.text{padding:1rem 1.25rem}
.block.text p{margin:0;white-space:pre-line;overflow-wrap:anywhere}
.block.text p+p{margin-top:.75rem}
.block.link a{display:flex;align-items:center;justify-content:space-between;gap:1rem;padding:1rem 1.25rem;text-decoration:none;font-weight:600;overflow-wrap:anywhere;border-radius:var(--radius)}
.block.link a:hover{text-decoration:underline}
.link-text{display:flex;flex-direction:column;gap:.15rem;min-width:0}
.link-host{font-weight:400;font-size:.88em;opacity:.8}
.block.link svg{flex:none;width:1.1em;height:1.1em;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.sr-label{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.footer{padding:1.5rem 1rem 2rem;color:var(--muted);font-size:.85rem;text-align:center}
.footer a{color:var(--muted)}
.notice{text-align:center}
.notice h1{margin-top:2rem}
.notice p{color:var(--muted)}
@media (max-width:30rem){.page{padding-top:2.25rem}h1{font-size:1.7rem}}
@media (prefers-reduced-motion:no-preference){.contact{transition:filter .15s}}`;
