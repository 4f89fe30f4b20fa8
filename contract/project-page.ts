import * as z from 'zod/mini';
import { requiredText } from './fields.js';
import { Limits } from './limits.js';
import { Instant, rangeOrdered } from './stats-queries.js';
import { namingErrorText } from './verdicts.js';

/**
 * The project page's own endpoints (docs/pages.md): its headline, its build-duration key,
 * which keys are pinned and hidden, and which event types are marked on its charts.
 */
export const ProjectPagePaths = {
  getHeadline: '/stats/get-headline',
  updateDurationKey: '/stats/update-duration-key',
  getKeyDisplay: '/stats/get-key-display',
  updateKeyDisplay: '/stats/update-key-display',
  getMarkEventTypes: '/stats/get-mark-event-types',
  updateMarkEventTypes: '/stats/update-mark-event-types',
} as const;

const projectId = requiredText(Limits.projectIdLength);
const name = requiredText(200);

/**
 * GET /stats/get-headline: `from`/`to` default to the last 30 days; optionally one branch, and one
 * event type for the builds and the success rate.
 */
export const HeadlineQuery = z
  .object({
    projectId,
    from: z.optional(Instant),
    to: z.optional(Instant),
    branch: z.optional(name),
    /** Builds and success rate of this event type only. */
    eventType: z.optional(requiredText(Limits.eventTypeLength)),
  })
  .check(z.refine(rangeOrdered, { path: ['to'], message: 'to must be after from' }));
export type HeadlineQuery = z.infer<typeof HeadlineQuery>;

/** POST /stats/update-duration-key: the series key of build durations; null: the default. */
export const UpdateDurationKeyRequest = z.strictObject({
  projectId,
  duration_key: z.nullable(name),
});
export type UpdateDurationKeyRequest = z.infer<typeof UpdateDurationKeyRequest>;
export const updateDurationKeyErrorText = namingErrorText(['projectId', 'duration_key']);

/** The build-duration key in force: the owner's, else `duration_ms` when the project has it. */
export interface DurationKeySetting {
  projectId: string;
  duration_key: string | null;
  /** Whether the owner set it (false: the default). */
  duration_key_set: boolean;
}

/**
 * One headline figure over the range and over the period of the same length just before it
 * (null: nothing to measure). `direction` says which change is good (null: neither).
 */
export interface HeadlineFigure {
  value: number | null;
  previous: number | null;
  direction: 'lower' | 'higher' | null;
  unit: string | null;
}

/** GET /stats/get-headline 200 body. */
export interface Headline extends DurationKeySetting {
  from: string;
  to: string;
  previous_from: string;
  previous_to: string;
  branch: string | null;
  eventType: string | null;
  builds: HeadlineFigure;
  success_rate: HeadlineFigure;
  duration_p50: HeadlineFigure;
  duration_p95: HeadlineFigure;
  active_alerts: HeadlineFigure;
  flaky_tests: HeadlineFigure;
}

/** How the project page shows a key: pinned (drawn first after regressions) or hidden. */
export const KEY_DISPLAYS = ['pinned', 'hidden'] as const;
export type KeyDisplayMode = (typeof KEY_DISPLAYS)[number];

/** Keys pinned at most: a page draws 12 charts, so more pins could not all be drawn. */
export const MAX_PINNED_KEYS = 12;
/** Keys hidden at most: the page lists them all in one line. */
export const MAX_HIDDEN_KEYS = 200;

/** GET /stats/get-key-display */
export const KeyDisplayQuery = z.object({ projectId });
export type KeyDisplayQuery = z.infer<typeof KeyDisplayQuery>;

/** POST /stats/update-key-display: pin, hide, or (null) show a key as every other. */
export const UpdateKeyDisplayRequest = z.strictObject({
  projectId,
  key: name,
  display: z.nullable(z.enum(KEY_DISPLAYS)),
});
export type UpdateKeyDisplayRequest = z.infer<typeof UpdateKeyDisplayRequest>;
export const updateKeyDisplayErrorText = namingErrorText(['projectId', 'key', 'display']);

/** The refusal of a pin or hide past its limit (400, nothing changed). */
export const KeyDisplayText = {
  tooManyPinned: `At most ${MAX_PINNED_KEYS} keys can be pinned: unpin one first.`,
  tooManyHidden: `At most ${MAX_HIDDEN_KEYS} keys can be hidden: show one first.`,
} as const;

/** The keys pinned (in the order they were pinned) and hidden (in key order) of a project. */
export interface KeyDisplay {
  projectId: string;
  pinned: string[];
  hidden: string[];
}

/** The event types marked on the charts when the owner set none. */
export const DEFAULT_MARK_EVENT_TYPES = ['release', 'deploy'] as const;
/** Marked event types at most: each is a read of the event cells per page. */
export const MAX_MARK_EVENT_TYPES = 10;

/** GET /stats/get-mark-event-types */
export const MarkEventTypesQuery = z.object({ projectId });
export type MarkEventTypesQuery = z.infer<typeof MarkEventTypesQuery>;

/** POST /stats/update-mark-event-types: 1 to 10 event types; null: the default. */
export const UpdateMarkEventTypesRequest = z.strictObject({
  projectId,
  event_types: z.nullable(
    z
      .array(requiredText(Limits.eventTypeLength))
      .check(z.minLength(1), z.maxLength(MAX_MARK_EVENT_TYPES)),
  ),
});
export type UpdateMarkEventTypesRequest = z.infer<typeof UpdateMarkEventTypesRequest>;
export const updateMarkEventTypesErrorText = namingErrorText(['projectId', 'event_types']);

/** The event types marked on a project's charts (releases and deploys by default). */
export interface MarkEventTypes {
  projectId: string;
  event_types: string[];
  /** Whether the owner set them (false: the default). */
  event_types_set: boolean;
}
