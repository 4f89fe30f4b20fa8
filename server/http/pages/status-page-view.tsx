export interface StatusPageProps {
  title: string;
  message: string;
  stylesheet: string;
  favicon: string;
  /** Shown on a 500, so a report can name the failed request. */
  requestId?: string;
}

/** A clear page for a 404 or an error. Always the same for the same status, whoever asks. */
export function StatusPageView({
  title,
  message,
  stylesheet,
  favicon,
  requestId,
}: StatusPageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{title}</title>
        <link rel="icon" href={favicon} type="image/svg+xml" />
        <link rel="stylesheet" href={stylesheet} />
      </head>
      <body>
        <main class="page notice">
          <h1>{title}</h1>
          <p>{message}</p>
          {requestId && (
            <p>
              Request id: <code>{requestId}</code>
            </p>
          )}
          <p>
            <a href="/">Go to the home page</a>
          </p>
        </main>
      </body>
    </html>
  );
}
