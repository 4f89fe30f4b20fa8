import { parseDiscordWebhookUrl } from '../../../contract/discord-webhook.js';
import type {
  CreateThresholdRequest,
  ProjectSettings,
  SeriesSettings,
  Threshold,
  UpdateProjectRequest,
  UpdateSeriesRequest,
  UpdateThresholdRequest,
} from '../../../contract/verdicts.js';
import { VerdictText } from '../../../contract/verdicts.js';
import { InvalidField, NotFound } from '../../domain/domain-errors.js';
import { newRecordId } from '../../domain/ids.js';
import { nowIso } from '../../domain/time.js';
import { validateModel } from '../../domain/verdicts/index.js';
import type { SecretBox } from '../../outbox/secret-box.js';
import type { Storage, ThresholdRow } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';
import { defaultBranchOf } from './default-branch.js';
import type { JudgingWorker } from './judging-worker.js';

export const asThreshold = (row: ThresholdRow): Threshold => ({
  id: row.id,
  projectId: row.projectId,
  key: row.key,
  branch: row.branch,
  test: row.test,
  lower_boundary: row.lowerBoundary,
  upper_boundary: row.upperBoundary,
  min_sample_size: row.minSampleSize,
  max_sample_size: row.maxSampleSize,
  window_seconds: row.windowSeconds,
  created_at: row.createdAt,
});

/** Checks a threshold's model (validateModel), naming the first field at fault. */
function checked(row: ThresholdRow): ThresholdRow {
  const validation = validateModel({
    test: row.test,
    lower_boundary: row.lowerBoundary,
    upper_boundary: row.upperBoundary,
    ...(row.minSampleSize === null ? {} : { min_sample_size: row.minSampleSize }),
    ...(row.maxSampleSize === null ? {} : { max_sample_size: row.maxSampleSize }),
    ...(row.windowSeconds === null ? {} : { window_seconds: row.windowSeconds }),
  });
  if (!validation.ok) {
    const [first] = validation.errors;
    if (first) throw new InvalidField(first.field, first.message);
  }
  return row;
}

/**
 * The owner's settings of verdicts: each key's unit and direction, thresholds, the project's
 * default branch, default threshold and chat webhook. Owner keys only (the routes refuse ingest
 * keys); a project or threshold of another account is not found.
 */
export function verdictSettings(
  storage: Storage,
  access: ProjectAccess,
  secrets: SecretBox,
  judging: Pick<JudgingWorker, 'catchUp'>,
) {
  const own = (accountId: string, projectId: string) =>
    access.assertOwn({ accountId, projectIds: null }, projectId);

  async function ownThreshold(accountId: string, id: string): Promise<ThresholdRow> {
    const row = await storage.verdicts.threshold(id);
    const project = row && (await storage.projects.find(row.projectId));
    if (!row || project?.accountId !== accountId) throw new NotFound('threshold');
    return row;
  }

  async function settingsOf(projectId: string): Promise<ProjectSettings> {
    // The default branch may follow from the records stored so far.
    await judging.catchUp();
    const stored = await storage.verdicts.projectSettings(projectId);
    return {
      projectId,
      default_branch: await defaultBranchOf(storage, projectId, stored.defaultBranch),
      default_branch_set: stored.defaultBranch !== null,
      default_threshold: stored.defaultThreshold,
      chat_webhook: stored.chatWebhook !== null,
      reevaluations_queued: await storage.verdicts.reevaluationsQueued(projectId),
    };
  }

  return {
    async updateSeries(accountId: string, request: UpdateSeriesRequest): Promise<SeriesSettings> {
      await own(accountId, request.projectId);
      const unit = request.unit === '' ? null : request.unit;
      await storage.verdicts.setSeries(request.projectId, request.key, unit, request.direction);
      const stored = (await storage.verdicts.seriesSettings(request.projectId)).find(
        (setting) => setting.key === request.key,
      );
      return {
        key: request.key,
        unit: stored?.unit ?? null,
        direction: stored?.direction ?? null,
      };
    },

    async projectSettings(accountId: string, projectId: string): Promise<ProjectSettings> {
      await own(accountId, projectId);
      return settingsOf(projectId);
    },

    async updateProject(
      accountId: string,
      request: UpdateProjectRequest,
    ): Promise<ProjectSettings> {
      await own(accountId, request.projectId);
      let chatWebhook: string | null | undefined;
      if (request.chat_webhook === null) chatWebhook = null;
      else if (request.chat_webhook !== undefined) {
        const target = parseDiscordWebhookUrl(request.chat_webhook);
        if (!target) {
          throw new InvalidField('chat_webhook', VerdictText.chatWebhook);
        }
        // Stored sealed, as the outbox's jobs hold it: only its id is in the clear.
        chatWebhook = JSON.stringify({
          ...target,
          path: secrets.seal(target.path, target.webhookId),
        });
      }
      await storage.verdicts.updateProjectSettings(request.projectId, {
        ...(request.default_branch === undefined ? {} : { defaultBranch: request.default_branch }),
        ...(request.default_threshold === undefined
          ? {}
          : { defaultThreshold: request.default_threshold }),
        ...(chatWebhook === undefined ? {} : { chatWebhook }),
      });
      return settingsOf(request.projectId);
    },

    async thresholds(accountId: string, projectId: string): Promise<Threshold[]> {
      await own(accountId, projectId);
      return (await storage.verdicts.thresholds(projectId)).map(asThreshold);
    },

    async createThreshold(accountId: string, request: CreateThresholdRequest): Promise<Threshold> {
      await own(accountId, request.projectId);
      const row = checked({
        id: newRecordId(),
        projectId: request.projectId,
        key: request.key,
        branch: request.branch,
        test: request.test,
        lowerBoundary: request.lower_boundary ?? null,
        upperBoundary: request.upper_boundary ?? null,
        minSampleSize: request.min_sample_size ?? null,
        maxSampleSize: request.max_sample_size ?? null,
        windowSeconds: request.window_seconds ?? null,
        createdAt: nowIso(),
      });
      await storage.verdicts.createThreshold(row);
      return asThreshold(row);
    },

    async updateThreshold(accountId: string, request: UpdateThresholdRequest): Promise<Threshold> {
      const current = await ownThreshold(accountId, request.id);
      const pick = <T>(value: T | undefined, old: T): T => (value === undefined ? old : value);
      const row = checked({
        ...current,
        key: pick(request.key, current.key),
        branch: pick(request.branch, current.branch),
        test: pick(request.test, current.test),
        lowerBoundary: pick(request.lower_boundary, current.lowerBoundary),
        upperBoundary: pick(request.upper_boundary, current.upperBoundary),
        minSampleSize: pick(request.min_sample_size, current.minSampleSize),
        maxSampleSize: pick(request.max_sample_size, current.maxSampleSize),
        windowSeconds: pick(request.window_seconds, current.windowSeconds),
      });
      await storage.verdicts.replaceThreshold(row);
      return asThreshold(row);
    },

    async deleteThreshold(accountId: string, id: string): Promise<void> {
      await ownThreshold(accountId, id);
      await storage.verdicts.deleteThreshold(id);
    },
  };
}

export type VerdictSettings = ReturnType<typeof verdictSettings>;
