import { type Chrome, DashboardHead } from './dashboard/views/dashboard-layout.js';

/** GET /: what this server is, and the way in. */
export function LandingView({ chrome }: { chrome: Chrome }) {
  return (
    <html lang="en">
      <DashboardHead title="Build stats and a page of your own" chrome={chrome} />
      <body>
        <main class="hero" id="main">
          <img src={chrome.favicon} alt="" width={56} height={56} />
          <h1>ci-stats</h1>
          <p>
            Build events, metrics and test results from every CI, with charts your team will
            actually look at, and a public page of your own.
          </p>
          <div class="actions">
            <a class="button" href="/dashboard/sign-in">
              Sign in to the dashboard
            </a>
          </div>
          <p>
            <a href="/docs">Read the manual</a>: report from your CI, call the API, run this server.
          </p>
        </main>
      </body>
    </html>
  );
}
