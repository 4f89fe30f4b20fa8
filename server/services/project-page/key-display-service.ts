import {
  DEFAULT_MARK_EVENT_TYPES,
  type KeyDisplay,
  type KeyDisplayMode,
  KeyDisplayText,
  MAX_HIDDEN_KEYS,
  MAX_PINNED_KEYS,
  type MarkEventTypes,
} from '../../../contract/project-page.js';
import { InvalidField } from '../../domain/domain-errors.js';
import type { Storage } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';

/** The keys of a project pinned (in pin order) and hidden (in key order). */
export async function projectKeyDisplay(
  storage: Pick<Storage, 'projectPage'>,
  projectId: string,
): Promise<KeyDisplay> {
  const rows = await storage.projectPage.keyDisplay(projectId);
  const of = (display: KeyDisplayMode) =>
    rows.filter((row) => row.display === display).map((row) => row.key);
  return { projectId, pinned: of('pinned'), hidden: of('hidden') };
}

/** The event types marked on a project's charts: the owner's, else release and deploy. */
export async function projectMarkTypes(
  storage: Pick<Storage, 'projectPage'>,
  projectId: string,
): Promise<MarkEventTypes> {
  const stored = await storage.projectPage.markEventTypes(projectId);
  return stored === null
    ? { projectId, event_types: [...DEFAULT_MARK_EVENT_TYPES], event_types_set: false }
    : { projectId, event_types: stored, event_types_set: true };
}

/**
 * Which keys the project page draws first and which it does not draw (docs/pages.md): the owner
 * pins or hides a key, on the page or through the API. A key need not have records yet (a pin
 * can wait for its first value); the limits keep the page's line of hidden keys and its charts
 * bounded.
 */
export function keyDisplayService(storage: Storage, access: ProjectAccess) {
  const own = (accountId: string, projectId: string) =>
    access.assertOwn({ accountId, projectIds: null }, projectId);

  return {
    async get(accountId: string, projectId: string): Promise<KeyDisplay> {
      await own(accountId, projectId);
      return projectKeyDisplay(storage, projectId);
    },

    /** Pins, hides or (null) shows a key; past a limit, InvalidField and nothing changed. */
    async set(
      accountId: string,
      projectId: string,
      key: string,
      display: KeyDisplayMode | null,
    ): Promise<KeyDisplay> {
      await own(accountId, projectId);
      const limit = display === 'hidden' ? MAX_HIDDEN_KEYS : MAX_PINNED_KEYS;
      const done = await storage.projectPage.setKeyDisplay(
        projectId,
        key,
        display,
        Date.now(),
        limit,
      );
      if (!done) {
        throw new InvalidField(
          'display',
          display === 'hidden' ? KeyDisplayText.tooManyHidden : KeyDisplayText.tooManyPinned,
        );
      }
      return projectKeyDisplay(storage, projectId);
    },

    async markTypes(accountId: string, projectId: string): Promise<MarkEventTypes> {
      await own(accountId, projectId);
      return projectMarkTypes(storage, projectId);
    },

    /** The event types to mark (each once, in the order given); null: back to the default. */
    async setMarkTypes(
      accountId: string,
      projectId: string,
      types: readonly string[] | null,
    ): Promise<MarkEventTypes> {
      await own(accountId, projectId);
      await storage.projectPage.setMarkEventTypes(projectId, types && [...new Set(types)]);
      return projectMarkTypes(storage, projectId);
    },
  };
}

export type KeyDisplayService = ReturnType<typeof keyDisplayService>;
