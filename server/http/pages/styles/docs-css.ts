/**
 * The manual's pages (/docs) and the API reference: plain reading, GitHub-like tables and code,
 * the system's light or dark scheme. Served from our own assets, like every stylesheet.
 */
export const DOCS_CSS = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--line:#d0d7de;--code:#f6f8fa;--link:#0969da;--get:#ddf4ff;--post:#dafbe1;--delete:#ffebe9}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--line:#3d444d;--code:#161b22;--link:#4493f8;--get:#0c2d6b;--post:#0f3d1e;--delete:#5a1e1e}}
body{font:16px/1.6 system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
header.docs{border-bottom:1px solid var(--line);padding:.6rem 1.5rem;display:flex;gap:1.5rem;flex-wrap:wrap}
header.docs a{text-decoration:none;font-weight:600}
main{max-width:60rem;margin:0 auto;padding:1rem 1.5rem 3rem;overflow-wrap:break-word}
h1,h2{border-bottom:1px solid var(--line);padding-bottom:.3rem}
h2{margin-top:2.5rem}
table{border-collapse:collapse;margin:.8rem 0;display:block;overflow-x:auto}
caption{text-align:left;font-weight:600}
th,td{border:1px solid var(--line);padding:.3rem .6rem;text-align:left;vertical-align:top}
pre{background:var(--code);padding:.75rem;overflow:auto;font-size:.85rem;border-radius:6px}
code{font-size:.9em;background:var(--code);padding:.1em .3em;border-radius:4px}
pre code{background:none;padding:0}
img{max-width:100%;height:auto}
blockquote{margin:0;padding:0 1rem;color:var(--muted);border-left:.25rem solid var(--line)}
.repository-file{color:inherit;text-decoration:underline dotted}
.operation{border:1px solid var(--line);border-radius:6px;padding:0 1rem 1rem;margin:1rem 0}
.operation h3 a{color:inherit;text-decoration:none}
.method{font-weight:700;padding:.1rem .4rem;border-radius:4px;background:var(--get)}
.method.post{background:var(--post)}.method.delete{background:var(--delete)}
.auth{color:var(--muted);font-size:.9rem}
.operation table{display:table;width:100%}
.operation td{overflow-wrap:anywhere}
.operation td pre{white-space:pre-wrap}
`;
