/**
 * What the project page reads beside the statistics cells (docs/pages.md): the owner's
 * build-duration key, and the project's alerts and change points in a range, for the headline
 * and the charts' markers. Alerts and change points are few per project (one per regression),
 * so these reads stay small whatever the records hold. Times are epoch ms.
 */

import type { KeyDisplayMode } from '../../../contract/project-page.js';

/** An alert or change point as a chart marks it. */
export interface PageMarkRow {
  key: string;
  at: number;
  commit: string | null;
  /** Alerts: the value and its limit; change points: the means before and after. */
  from: number | null;
  to: number;
}

/** A key the owner pinned or hidden (docs/pages.md). */
export interface KeyDisplayRow {
  key: string;
  display: KeyDisplayMode;
}

export interface ProjectPageRepository {
  /** The keys pinned and hidden, pinned first in the order they were pinned, then hidden by key. */
  keyDisplay(projectId: string): Promise<KeyDisplayRow[]>;
  /**
   * Pins or hides a key (null: neither), at `at` (epoch ms). Refused (false, nothing changed)
   * when `limit` other keys have that display already; one statement, so two requests cannot
   * pass the limit together on SQLite (on PostgreSQL, at most by the requests racing).
   */
  setKeyDisplay(
    projectId: string,
    key: string,
    display: KeyDisplayMode | null,
    at: number,
    limit: number,
  ): Promise<boolean>;
  /** The owner's build-duration key; null: not set (the page then uses `duration_ms`). */
  durationKey(projectId: string): Promise<string | null>;
  setDurationKey(projectId: string, key: string | null): Promise<void>;
  /** The event types the owner marks on the charts; null: not set (release and deploy). */
  markEventTypes(projectId: string): Promise<string[] | null>;
  setMarkEventTypes(projectId: string, types: readonly string[] | null): Promise<void>;
  /** How many active alerts were raised in [from, to), of `branch` when given. */
  activeAlerts(projectId: string, from: number, to: number, branch?: string): Promise<number>;
  /** The active alerts raised in [from, to), newest first, at most `limit`. */
  alertMarks(
    projectId: string,
    from: number,
    to: number,
    branch: string | undefined,
    limit: number,
  ): Promise<PageMarkRow[]>;
  /**
   * The hours that [from, to) touches holding events of these types (of `branch` when given),
   * newest first, at most `limit`: from the hour cells, so no raw event is looked at.
   */
  eventHours(
    projectId: string,
    eventTypes: readonly string[],
    from: number,
    to: number,
    branch: string | undefined,
    limit: number,
  ): Promise<number[]>;
  /**
   * The minutes in [from, to) (within an hour) holding events of these types, each with its
   * type, newest first: from the minute cells. Events not folded yet (a second or so) are not
   * among them.
   */
  eventMinutes(
    projectId: string,
    eventTypes: readonly string[],
    from: number,
    to: number,
    branch: string | undefined,
  ): Promise<{ start: number; eventType: string }[]>;
  /**
   * The event types of the hours that [from, to) touches (of `branch` when given), in byte order,
   * at most `limit`: from the hour cells, for the page's table by event type.
   */
  eventTypes(
    projectId: string,
    from: number,
    to: number,
    branch: string | undefined,
    limit: number,
  ): Promise<string[]>;
  /** The change points found in [from, to) of every key, newest first, at most `limit`. */
  changePointMarks(
    projectId: string,
    from: number,
    to: number,
    limit: number,
  ): Promise<PageMarkRow[]>;
}
