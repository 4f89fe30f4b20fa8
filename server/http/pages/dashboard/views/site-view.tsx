import { Limits } from '../../../../../contract/limits.js';
import type { Theme } from '../../../../domain/themes.js';
import { Csrf, described, Field, TextAreaField, TextField } from '../form-controls.js';
import type { FieldErrors } from '../form-errors.js';
import type { BlockRow, SiteFormValues } from '../site-form.js';
import { DashboardLayout, type LayoutProps } from './dashboard-layout.js';

export interface SiteProps extends Omit<LayoutProps, 'title' | 'section' | 'children'> {
  values: SiteFormValues;
  errors: FieldErrors;
  themes: readonly Theme[];
  defaultThemeId: string;
  visible: boolean;
  displayName: string | null;
}

function ThemePicker({ themes, selected }: { themes: readonly Theme[]; selected: string }) {
  return (
    <fieldset>
      <legend class="legend">Theme</legend>
      <div class="themes">
        {themes.map((theme) => (
          <label class="theme-option">
            <input type="radio" name="theme_id" value={theme.id} checked={theme.id === selected} />
            <span class={`theme-preview theme-${theme.id}`}>
              <span class="t-name">{theme.name}</span>
              <span class="t-card">example.com/link</span>
              <span class="t-muted">{theme.scheme === 'dark' ? 'Dark' : 'Light'} · Aa</span>
              <span class="t-button">Contact</span>
            </span>
          </label>
        ))}
      </div>
      <p class="hint">
        The page is shown in the theme you pick; an unknown theme shows the default.
      </p>
    </fieldset>
  );
}

function BlockEditor({
  block,
  index,
  count,
  error,
  titleError,
}: {
  block: BlockRow;
  index: number;
  count: number;
  error?: string | undefined;
  titleError?: string | undefined;
}) {
  const prefix = `blocks[${index}]`;
  const contentId = `block-${index}-content`;
  return (
    <li class="block-row">
      <input type="hidden" name={`${prefix}[id]`} value={block.id} />
      <div class="block-head">
        <span class="legend">{`Block ${index + 1}`}</span>
        <div class="block-tools">
          <label class="check">
            <input type="checkbox" name={`${prefix}[enabled]`} checked={block.enabled} />
            Shown
          </label>
          <button
            class="button secondary small"
            type="submit"
            name="action"
            value={`up-${index}`}
            disabled={index === 0}
          >
            <span aria-hidden="true">↑</span>
            <span class="sr-only">{`Move block ${index + 1} up`}</span>
          </button>
          <button
            class="button secondary small"
            type="submit"
            name="action"
            value={`down-${index}`}
            disabled={index === count - 1}
          >
            <span aria-hidden="true">↓</span>
            <span class="sr-only">{`Move block ${index + 1} down`}</span>
          </button>
          <button class="button danger small" type="submit" name="action" value={`remove-${index}`}>
            Remove<span class="sr-only">{` block ${index + 1}`}</span>
          </button>
        </div>
      </div>
      <div class="block-fields">
        <Field id={`block-${index}-type`} label="Type">
          <select id={`block-${index}-type`} name={`${prefix}[type]`}>
            <option value="text" selected={block.type === 'text'}>
              Text
            </option>
            <option value="link" selected={block.type === 'link'}>
              Link
            </option>
          </select>
        </Field>
        <Field id={contentId} label={block.type === 'link' ? 'URL' : 'Text'} error={error}>
          <textarea
            id={contentId}
            name={`${prefix}[content]`}
            maxLength={Limits.blockContentLength}
            {...described(contentId, error)}
          >
            {block.content}
          </textarea>
        </Field>
        {block.type === 'link' && (
          <Field id={`block-${index}-title`} label="Title (optional)" error={titleError}>
            <input
              type="text"
              id={`block-${index}-title`}
              name={`${prefix}[title]`}
              value={block.title}
              maxLength={Limits.blockTitleLength}
              {...described(`block-${index}-title`, titleError)}
            />
          </Field>
        )}
      </div>
    </li>
  );
}

/** GET /dashboard/site: the page's content, theme and blocks, and its visibility. */
export function SiteView(props: SiteProps) {
  const { values, errors, themes, defaultThemeId, visible, displayName, csrf } = props;
  const selected = themes.some((t) => t.id === values.theme_id) ? values.theme_id : defaultThemeId;
  return (
    <DashboardLayout {...props} title="Site" section="site">
      <div class="page-head">
        <div>
          <h1>Your page</h1>
          <p class="lead">What visitors of your public page see.</p>
        </div>
      </div>
      <div class="two-col">
        <form method="post" action="/dashboard/site" class="card" novalidate>
          <Csrf token={csrf} />
          {errors.form && <p class="error">{errors.form}</p>}
          <h2>Profile</h2>
          <TextAreaField
            name="bio"
            label="Bio"
            value={values.bio}
            error={errors.bio}
            maxLength={Limits.bioLength}
            hint="Line breaks are kept."
          />
          <TextField
            name="avatar_url"
            label="Avatar URL"
            type="url"
            value={values.avatar_url}
            error={errors.avatar_url}
            hint="An image at an absolute http(s) URL, shown 96 × 96."
          />
          <TextField
            name="location"
            label="Location"
            value={values.location}
            error={errors.location}
            maxLength={Limits.locationLength}
          />
          <TextField
            name="mood"
            label="Mood"
            value={values.mood}
            error={errors.mood}
            maxLength={Limits.moodLength}
          />
          <ThemePicker themes={themes} selected={selected} />
          <h2>Blocks</h2>
          <p class="hint">Shown in this order. Hidden blocks stay here but not on the page.</p>
          <ul class="blocks">
            {values.blocks.map((block, index) => (
              <BlockEditor
                block={block}
                index={index}
                count={values.blocks.length}
                error={errors[`blocks.${index}.content`]}
                titleError={errors[`blocks.${index}.title`]}
              />
            ))}
            <li class="block-row">
              <div class="block-head">
                <span class="legend">Add a block</span>
              </div>
              <div class="block-fields">
                <Field id="new-block-type" label="Type">
                  <select id="new-block-type" name="newBlock[type]">
                    <option value="text" selected={values.newBlock.type === 'text'}>
                      Text
                    </option>
                    <option value="link" selected={values.newBlock.type === 'link'}>
                      Link
                    </option>
                  </select>
                </Field>
                <Field id="new-block-content" label="Text or URL" error={errors.newBlock}>
                  <textarea
                    id="new-block-content"
                    name="newBlock[content]"
                    maxLength={Limits.blockContentLength}
                    {...described('new-block-content', errors.newBlock)}
                  >
                    {values.newBlock.content}
                  </textarea>
                </Field>
              </div>
            </li>
          </ul>
          <div class="actions">
            <button class="button" type="submit" name="action" value="save">
              Save the page
            </button>
          </div>
        </form>
        <aside>
          <section class="card" aria-labelledby="visibility-title">
            <h2 id="visibility-title">Visibility</h2>
            <p>
              <span class={`pill ${visible ? 'on' : 'off'}`}>
                <span class="dot" aria-hidden="true" />
                {visible ? 'Visible to everyone' : 'Hidden'}
              </span>
            </p>
            {displayName ? (
              <p class="stat-note">
                Address: <a href={`/@${displayName}`}>{`/@${displayName}`}</a>
                {visible ? '' : ' (a 404 until you make it visible)'}
              </p>
            ) : (
              <p class="stat-note">
                Your page needs a <a href="/dashboard/account">display name</a> to have an address.
              </p>
            )}
            <form method="post" action="/dashboard/site/visibility" class="actions">
              <Csrf token={csrf} />
              <input type="hidden" name="back" value="site" />
              <button class="button secondary" type="submit">
                {visible ? 'Hide the page' : 'Make it visible'}
              </button>
            </form>
          </section>
          {values.avatar_url && (
            <section class="card" aria-labelledby="avatar-title">
              <h2 id="avatar-title">Avatar</h2>
              <img
                class="avatar-preview"
                src={values.avatar_url}
                alt="Your avatar, as it is now"
                width={64}
                height={64}
                referrerpolicy="no-referrer"
              />
            </section>
          )}
        </aside>
      </div>
    </DashboardLayout>
  );
}
