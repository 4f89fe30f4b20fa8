import { Csrf, described, Field, Notice } from '../form-controls.js';
import { type Chrome, DashboardHead } from './dashboard-layout.js';

export interface SignInProps {
  chrome: Chrome;
  csrf: string;
  /** Why the last attempt failed, if it did. */
  error?: string | undefined;
  notice?: string | undefined;
}

/** The sign-in form: an API key of the account (a full one), never kept by the browser. */
export function SignInView({ chrome, csrf, error, notice }: SignInProps) {
  return (
    <html lang="en">
      <DashboardHead title="Sign in" chrome={chrome} />
      <body>
        <main class="main sign-in" id="main">
          <div class="card">
            <h1>Sign in</h1>
            <p class="lead">
              Use an API key of your account. Keys that can only ingest cannot sign in.
            </p>
            {notice && <Notice tone="ok">{notice}</Notice>}
            <form method="post" action="/dashboard/sign-in">
              <Csrf token={csrf} />
              <Field
                id="api_key"
                label="API key"
                error={error}
                hint="It starts with cis_. The first one is printed when the server starts on an empty database."
              >
                <input
                  id="api_key"
                  name="api_key"
                  type="password"
                  autocomplete="off"
                  spellcheck={false}
                  required
                  {...described('api_key', error, 'hint')}
                />
              </Field>
              <div class="actions">
                <button class="button" type="submit">
                  Sign in
                </button>
              </div>
            </form>
          </div>
        </main>
      </body>
    </html>
  );
}
