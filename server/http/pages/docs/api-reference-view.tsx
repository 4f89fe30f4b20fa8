/**
 * The API reference at /docs/api/reference: the OpenAPI document rendered on the server (no
 * script, no CDN).
 */

import { type DocsChrome, DocsHeader } from './docs-page-view.js';
import { InlineMarkdown } from './inline-markdown.js';

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { example?: unknown; examples?: unknown }> }
  >;
}

export interface OpenApiDocument {
  info: { title: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function OperationView({ method, path, op }: { method: string; path: string; op: Operation }) {
  const body = op.requestBody?.content?.['application/json']?.schema;
  const anchor = `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, '-');
  return (
    <section class="operation" id={anchor}>
      <h3>
        <a href={`#${anchor}`}>
          <code class={`method ${method}`}>{method.toUpperCase()}</code> <code>{path}</code>
        </a>
      </h3>
      {op.summary && (
        <p>
          <InlineMarkdown text={op.summary} />
        </p>
      )}
      <p class="auth">
        {op.security?.[0]?.apiKey
          ? 'Needs the X-API-KEY header.'
          : op.security?.[0]?.adminToken
            ? 'Needs Authorization: Bearer <ADMIN_TOKEN>.'
            : 'No authentication.'}
      </p>
      {op.parameters && op.parameters.length > 0 && (
        <table>
          <caption>Parameters</caption>
          <thead>
            <tr>
              <th>Name</th>
              <th>In</th>
              <th>Required</th>
              <th>Schema</th>
            </tr>
          </thead>
          <tbody>
            {op.parameters.map((p) => (
              <tr key={`${p.in}-${p.name}`}>
                <td>
                  <code>{p.name}</code>
                </td>
                <td>{p.in}</td>
                <td>{p.required ? 'yes' : 'no'}</td>
                <td>
                  <code>{JSON.stringify(p.schema)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {body !== undefined && (
        <details>
          <summary>Request body (JSON Schema)</summary>
          <pre tabindex={0}>{json(body)}</pre>
        </details>
      )}
      <table>
        <caption>Answers</caption>
        <thead>
          <tr>
            <th>Status</th>
            <th>Meaning</th>
            <th>Example</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(op.responses ?? {}).map(([status, response]) => {
            const content = response.content?.['application/json'];
            return (
              <tr key={status}>
                <td>{status}</td>
                <td>
                  <InlineMarkdown text={response.description} />
                </td>
                <td>
                  {content?.example !== undefined && (
                    <pre tabindex={0}>{json(content.example)}</pre>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

export function ApiReferenceView({
  document,
  chrome,
}: {
  document: OpenApiDocument;
  chrome: DocsChrome;
}) {
  const byTag = new Map<string, [string, string, Operation][]>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const tag = op.tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), [method, path, op]]);
    }
  }
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{document.info.title}</title>
        <link rel="stylesheet" href={chrome.stylesheet} />
        <link rel="icon" href={chrome.favicon} type="image/svg+xml" />
      </head>
      <body>
        <DocsHeader />
        <main>
          <h1>{document.info.title}</h1>
          <p>
            <InlineMarkdown text={document.info.description} />
          </p>
          <p>
            Written for people: <a href="/docs/api">the HTTP API</a>. Machine-readable:{' '}
            <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).
          </p>
          <nav>
            <ul>
              {[...byTag.keys()].map((tag) => (
                <li key={tag}>
                  <a href={`#${tag.replace(/\W+/g, '-')}`}>{tag}</a>
                </li>
              ))}
            </ul>
          </nav>
          {[...byTag.entries()].map(([tag, operations]) => (
            <section key={tag} id={tag.replace(/\W+/g, '-')}>
              <h2>{tag}</h2>
              {operations.map(([method, path, op]) => (
                <OperationView key={`${method} ${path}`} method={method} path={path} op={op} />
              ))}
            </section>
          ))}
        </main>
      </body>
    </html>
  );
}
