/**
 * A share link just created, at the top of the page (it is shown this once): the link with its
 * copy button, and each badge with its Markdown for a README and a preview.
 */
export function NewShareLink({ url, path, keys }: { url: string; path: string; keys: string[] }) {
  // The preview is loaded from this server (the page's policy allows its own images only), at the
  // link's path in the app (`url` may name PUBLIC_URL's host, and holds the base path already).
  const badges = [
    { id: 'status', name: 'Status', file: '/badge/status.svg', alt: 'build status' },
    ...keys.map((key, i) => ({
      id: `metric-${i}`,
      name: key,
      file: `/badge/metric/${encodeURIComponent(key)}.svg`,
      alt: key,
    })),
  ];
  return (
    <section class="card notice ok new-share-link" role="status" aria-labelledby="new-share-title">
      <h2 id="new-share-title">New share link (shown once; copy it now)</h2>
      <p class="copy-row">
        <input
          class="secret"
          id="new-share-link"
          readonly
          value={url}
          aria-label="New share link"
        />
        <button class="button secondary small" type="button" data-copy="new-share-link">
          Copy
        </button>
      </p>
      <details class="badges">
        <summary>Badges for a README (Markdown)</summary>
        <ul class="badge-list">
          {badges.map((badge) => {
            const markdown = `[![${badge.alt}](${url}${badge.file})](${url})`;
            return (
              <li>
                <img src={`${path}${badge.file}`} alt={`${badge.name} badge`} height="20" />
                <span class="copy-row">
                  <input
                    id={`badge-${badge.id}`}
                    readonly
                    value={markdown}
                    aria-label={`Markdown of the ${badge.name} badge`}
                  />
                  <button
                    class="button secondary small"
                    type="button"
                    data-copy={`badge-${badge.id}`}
                  >
                    Copy
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
        <p class="muted">
          Status badge options: <code>?branch=</code>, <code>?eventType=</code> and{' '}
          <code>?label=</code>.
        </p>
      </details>
    </section>
  );
}
