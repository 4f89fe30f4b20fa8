import type { Theme } from '../../../domain/themes.js';
import { FONT_STACKS } from './fonts.js';

/**
 * The dashboard's stylesheet: light, and dark when the system is. The theme picker previews each
 * theme with its own palette (classes generated from the catalogue), so it needs no script.
 */
export function dashboardCss(themes: readonly Theme[]): string {
  const previews = themes
    .map((theme) => {
      const p = theme.palette;
      return `.theme-preview.theme-${theme.id}{--p-bg:${p.background};--p-surface:${p.surface};--p-border:${p.border};--p-text:${p.text};--p-muted:${p.muted};--p-link:${p.link};--p-accent:${p.accent};--p-accent-text:${p.accentText};--p-radius:${Math.min(theme.radius, 10)}px;font-family:${FONT_STACKS[theme.font]}}`;
    })
    .join('\n');
  return `${BASE}\n${previews}`;
}

const BASE = `:root{color-scheme:light dark;--bg:#f6f7f9;--surface:#ffffff;--surface-2:#f0f2f5;--border:#d9dde3;--text:#1b1f24;--muted:#57606a;--link:#0a5bb5;--accent:#0a5bb5;--accent-text:#ffffff;--danger:#b42318;--danger-bg:#fdecea;--ok:#146c2e;--ok-bg:#e6f4ea;--warn-bg:#fff4d6;--focus:#0a5bb5;--shadow:0 1px 2px rgba(16,24,40,.06),0 1px 3px rgba(16,24,40,.08);--font:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif;--mono:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",monospace}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--surface:#171b21;--surface-2:#1f252d;--border:#2e3640;--text:#e6edf3;--muted:#9ea8b3;--link:#6cb6ff;--accent:#4a9eff;--accent-text:#0b1016;--danger:#ff8f87;--danger-bg:#3a1614;--ok:#6fdc8c;--ok-bg:#12301c;--warn-bg:#3a2f10;--focus:#6cb6ff;--shadow:none}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font-family:var(--font);font-size:15px;line-height:1.55}
a{color:var(--link);text-underline-offset:.18em}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
code,.mono{font-family:var(--mono);font-size:.92em}
.wrap-anywhere{overflow-wrap:anywhere}
.skip{position:absolute;left:-9999px;top:0}.skip:focus{left:1rem;top:1rem;z-index:10;background:var(--surface);padding:.5rem 1rem}
.topbar{background:var(--surface);border-bottom:1px solid var(--border)}
.topbar-inner{max-width:72rem;margin:0 auto;padding:.7rem 1.25rem;display:flex;align-items:center;gap:1.5rem;flex-wrap:wrap}
.brand{display:flex;align-items:center;gap:.55rem;font-weight:700;color:var(--text);text-decoration:none;font-size:1.05rem}
.brand img{width:24px;height:24px}
.nav{display:flex;gap:.25rem;flex-wrap:wrap;flex:1}
.nav a{color:var(--muted);text-decoration:none;padding:.4rem .75rem;border-radius:8px;font-weight:500}
.nav a:hover{background:var(--surface-2);color:var(--text)}
.nav a[aria-current="page"]{background:var(--surface-2);color:var(--text)}
.who{display:flex;align-items:center;gap:.75rem;color:var(--muted);font-size:.9rem}
.main{max-width:72rem;margin:0 auto;padding:2rem 1.25rem 4rem}
.page-head{display:flex;align-items:flex-end;justify-content:space-between;gap:1rem;flex-wrap:wrap;margin-bottom:1.5rem}
h1{font-size:1.6rem;line-height:1.25;margin:0;letter-spacing:-.01em}
h2{font-size:1.1rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:0 0 .5rem}
.lead{color:var(--muted);margin:.35rem 0 0}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr))}
.card{background:var(--surface);border:1px solid var(--border);border-radius:12px;padding:1.25rem;box-shadow:var(--shadow)}
.card+.card{margin-top:1rem}
.grid .card+.card{margin-top:0}
.grid+.card{margin-top:1rem}
.stat-label{color:var(--muted);font-size:.85rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em;margin:0 0 .35rem}
.stat-value{font-size:1.15rem;font-weight:600;margin:0;overflow-wrap:anywhere}
.stat-note{color:var(--muted);font-size:.9rem;margin:.35rem 0 0}
.stat-note .change-good{color:var(--ok)}.stat-note .change-bad{color:var(--danger)}
.pill{display:inline-flex;align-items:center;gap:.35rem;padding:.12rem .6rem;border-radius:999px;font-size:.82rem;font-weight:600;background:var(--surface-2);color:var(--muted);border:1px solid var(--border)}
.pill.on{background:var(--ok-bg);color:var(--ok);border-color:transparent}
.pill.off{background:var(--surface-2)}
.pill.bad{background:var(--danger-bg);color:var(--danger);border-color:transparent}
.dot{width:.55rem;height:.55rem;border-radius:50%;background:currentColor;display:inline-block}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.65rem .5rem;border-bottom:1px solid var(--border);vertical-align:middle}
th{color:var(--muted);font-size:.82rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em}
tr:last-child td{border-bottom:0}
.table-wrap{overflow-x:auto;position:relative}
.empty{color:var(--muted);text-align:center;padding:1.5rem}
form{margin:0}
.field{margin-bottom:1rem}
.field>label,.legend{display:block;font-weight:600;margin-bottom:.35rem}
.hint{color:var(--muted);font-size:.88rem;margin:.3rem 0 0}
input[type=text],input[type=url],input[type=email],input[type=password],textarea,select{width:100%;font:inherit;color:var(--text);background:var(--surface);border:1px solid var(--border);border-radius:8px;padding:.55rem .7rem}
textarea{min-height:6rem;resize:vertical}
input[aria-invalid=true],textarea[aria-invalid=true],select[aria-invalid=true]{border-color:var(--danger);box-shadow:0 0 0 1px var(--danger)}
.error{color:var(--danger);font-size:.88rem;font-weight:600;margin:.35rem 0 0}
fieldset{border:0;padding:0;margin:0 0 1rem;min-width:0}
.check{display:inline-flex;align-items:center;gap:.45rem;font-weight:500}
.check input{width:1.05rem;height:1.05rem;accent-color:var(--accent)}
.actions{display:flex;gap:.6rem;flex-wrap:wrap;align-items:center;margin-top:1.25rem}
.button{display:inline-flex;align-items:center;justify-content:center;gap:.4rem;font:inherit;font-weight:600;padding:.55rem 1.05rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-text);cursor:pointer;text-decoration:none;line-height:1.2}
.button:hover{filter:brightness(1.07)}
.button.secondary{background:var(--surface);color:var(--text);border-color:var(--border)}
.button.secondary:hover{background:var(--surface-2);filter:none}
.button.danger{background:var(--surface);color:var(--danger);border-color:var(--border)}
.button.danger:hover{background:var(--danger-bg);filter:none}
.button.small{padding:.3rem .65rem;font-size:.88rem;font-weight:600}
.link-button{background:none;border:0;padding:0;font:inherit;color:var(--link);cursor:pointer;text-decoration:underline;text-underline-offset:.18em}
.notice{border-radius:10px;padding:.8rem 1rem;margin-bottom:1.25rem;border:1px solid transparent;font-weight:500}
.notice.ok{background:var(--ok-bg);color:var(--ok)}
.notice.bad{background:var(--danger-bg);color:var(--danger)}
.notice.warn{background:var(--warn-bg)}
.secret{display:block;font-family:var(--mono);font-size:.95rem;padding:.8rem 1rem;background:var(--surface-2);border:1px dashed var(--border);border-radius:8px;overflow-wrap:anywhere;user-select:all;margin:.5rem 0}
.two-col{display:grid;grid-template-columns:minmax(0,1.6fr) minmax(0,1fr);gap:1rem;align-items:start}
@media (max-width:52rem){.two-col{grid-template-columns:minmax(0,1fr)}}
.field-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:0 1rem;align-items:start}
td select{min-width:8.5rem}
td input[type=text]{min-width:5rem}
.themes{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.75rem}
.theme-option{position:relative;display:block;cursor:pointer}
.theme-option input{position:absolute;opacity:0;inset:0;cursor:pointer}
.theme-preview{display:block;border-radius:10px;border:2px solid var(--border);overflow:hidden;background:var(--p-bg);color:var(--p-text);padding:.7rem}
.theme-option input:checked+.theme-preview{border-color:var(--accent);box-shadow:0 0 0 2px var(--accent)}
.theme-option input:focus-visible+.theme-preview{outline:3px solid var(--focus);outline-offset:2px}
.theme-preview .t-name{display:block;font-weight:700;font-size:.92rem;margin-bottom:.45rem}
.theme-preview .t-card{display:block;background:var(--p-surface);border:1px solid var(--p-border);border-radius:var(--p-radius);padding:.35rem .5rem;font-size:.8rem;color:var(--p-link);font-weight:600;margin-bottom:.35rem}
.theme-preview .t-muted{display:block;font-size:.78rem;color:var(--p-muted)}
.theme-preview .t-button{display:inline-block;margin-top:.45rem;font-size:.75rem;font-weight:700;padding:.15rem .55rem;border-radius:999px;background:var(--p-accent);color:var(--p-accent-text)}
.blocks{display:grid;gap:.75rem;margin:0;padding:0;list-style:none}
.block-row{background:var(--surface-2);border:1px solid var(--border);border-radius:10px;padding:.9rem}
.block-head{display:flex;align-items:center;justify-content:space-between;gap:.75rem;flex-wrap:wrap;margin-bottom:.6rem}
.block-head .legend{margin:0}
.block-tools{display:flex;gap:.4rem;flex-wrap:wrap;align-items:center}
.block-fields{display:grid;grid-template-columns:9rem 1fr;gap:.6rem}
@media (max-width:36rem){.block-fields{grid-template-columns:1fr}}
.avatar-preview{width:64px;height:64px;border-radius:50%;object-fit:cover;border:1px solid var(--border);background:var(--surface-2)}
.muted{color:var(--muted)}
.sparkline{color:var(--accent);vertical-align:middle;display:block}
.summary-row td{white-space:nowrap}
@media (max-width:40rem){.topbar-inner{padding:.25rem .75rem;gap:.1rem .5rem;justify-content:space-between}.brand{line-height:1.2}.who .button.small{padding:.2rem .6rem}.nav{order:3;flex:1 0 100%;flex-wrap:nowrap;justify-content:space-between;gap:0}.nav a{padding:.25rem .45rem;font-size:.9rem;line-height:1.2;white-space:nowrap}.who>span{display:none}.main{padding:1rem .75rem 3rem}.page-head{margin-bottom:1rem}.card{padding:1rem}}
.inline-form{display:inline}
.sign-in{max-width:26rem;margin:6vh auto 0}
.sign-in .card{padding:1.75rem}
.sign-in .lead{margin-bottom:1.25rem}
.hero{max-width:44rem;margin:10vh auto 0;text-align:center;padding:0 1.25rem}
.hero h1{font-size:2.3rem;margin-bottom:.75rem}
.hero p{color:var(--muted);font-size:1.1rem}
.hero .actions{justify-content:center}
.footer{max-width:72rem;margin:0 auto;padding:1rem 1.25rem 2.5rem;color:var(--muted);font-size:.85rem}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}`;
