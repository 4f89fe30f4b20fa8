import { IDEMPOTENCY_TTL_MS } from '../../contract/idempotency-key.js';
import { hearsOfBuilds } from '../domain/channels/channel-rules.js';
import type { SecretBox } from '../outbox/secret-box.js';
import type { SlackOAuth } from '../providers/channels/slack-oauth.js';
import { type ForwardingProvider, localForwarding } from '../providers/forwarding-provider.js';
import type { Storage } from '../storage/storage.js';
import { adminService } from './admin-service.js';
import { apiKeyService } from './api-key-service.js';
import { channelDirectory } from './channels/channel-directory.js';
import { channelDispatch } from './channels/channel-dispatch.js';
import { channelService, type SampleSender } from './channels/channel-service.js';
import { digestScheduler } from './channels/digest-scheduler.js';
import { slackInstallService } from './channels/slack-install.js';
import { credentials } from './credentials.js';
import { displayNameService } from './display-name-service.js';
import { exportService } from './export/export-service.js';
import { importService } from './export/import-service.js';
import { forwardingService } from './forwarding-service.js';
import { healthService } from './health-service.js';
import { idempotency } from './idempotency-service.js';
import { ingestService } from './ingest-service.js';
import type { Logger } from './logger.js';
import { projectAccess } from './project-access.js';
import { headlineService } from './project-page/headline-service.js';
import { keyDisplayService } from './project-page/key-display-service.js';
import { projectService } from './project-service.js';
import { projectViewService } from './project-view-service.js';
import { publicPageService } from './public-page-service.js';
import { recordService } from './record-service.js';
import { retentionService } from './retention-service.js';
import { sessionService } from './session-service.js';
import { shareLinkService } from './share-link-service.js';
import { siteService } from './site-service.js';
import { statsService } from './stats-service.js';
import { storageUseService } from './storage-use-service.js';
import { projectSummaryService } from './summaries/project-summaries.js';
import { quarantineService } from './tests/quarantine-service.js';
import { testIngestService } from './tests/test-ingest-service.js';
import { testQueryService } from './tests/test-query-service.js';
import { TestUpkeepWorker } from './tests/test-upkeep-worker.js';
import { TestsPacing } from './tests/tests-pacing.js';
import { JudgingWorker } from './verdicts/judging-worker.js';
import { reevaluations } from './verdicts/reevaluation.js';
import { verdictReads } from './verdicts/verdict-reads.js';
import { verdictSettings } from './verdicts/verdict-settings.js';

export interface ServiceOptions {
  mailDomain: string;
  /** The external forwarding provider; undefined when forwarding lives only in our database. */
  forwarding: ForwardingProvider | undefined;
  /** Whether a contacts provider is configured. */
  contacts: boolean;
  log: Logger;
  /** Seals the webhook tokens of the notification jobs that E7 queues. */
  secrets: SecretBox;
  /** The server's public origin, for links back to a project's page in messages. */
  publicUrl: string | undefined;
  /** WEBHOOK_ALLOWED_HOSTS. */
  webhookAllowedHosts: readonly string[];
  /** test-channel's sample message. */
  sendSample: SampleSender;
  /** The operator's Slack app, for "Add to Slack"; undefined: not configured. */
  slackOAuth: SlackOAuth | undefined;
}

/**
 * Every operation of the product, each in one place: the JSON API, the admin API and CLI, and
 * any page call these, never the storage directly.
 */
export function createServices(storage: Storage, options: ServiceOptions) {
  const verified = credentials(storage);
  const apiKeys = apiKeyService(storage, verified);
  const access = projectAccess(storage);
  const projects = projectService(storage);
  const records = recordService(storage, access);
  const storageUse = storageUseService(storage, access, {
    onError: (error) => options.log.error({ err: error }, 'could not measure the storage use'),
  });
  const judging = new JudgingWorker(storage, options.log);
  const verdicts = verdictReads(storage, access, judging);
  const reevaluationService = reevaluations(storage, access, judging);
  const stats = statsService(storage, access, verdicts);
  const testsPacing = new TestsPacing();
  const testUpkeep = new TestUpkeepWorker(storage, testsPacing, options.log);
  const testQueries = testQueryService(storage, access, (projectId) =>
    testUpkeep.catchUp(projectId),
  );
  const shareLinks = shareLinkService(storage, access);
  const directory = channelDirectory(storage);
  const once = idempotency();
  const headline = headlineService(storage, access, { stats, tests: testQueries, verdicts });
  const channels = channelService(storage, access, {
    secrets: options.secrets,
    allowedHosts: options.webhookAllowedHosts,
    directory,
    sendSample: options.sendSample,
  });
  return {
    credentials: verified,
    apiKeys,
    sessions: sessionService(storage, verified),
    admin: adminService(storage, apiKeys, projects),
    forwarding: forwardingService(storage, {
      provider: options.forwarding ?? localForwarding,
      mailDomain: options.mailDomain,
      syncContacts: options.contacts,
      log: options.log,
    }),
    displayName: displayNameService(storage, {
      mailDomain: options.mailDomain,
      removeOldAlias: options.forwarding !== undefined,
    }),
    site: siteService(storage),
    publicPage: publicPageService(storage, options.mailDomain),
    projects,
    ingest: ingestService(
      storage,
      access,
      once,
      options.secrets,
      channelDispatch(storage, directory, options.publicUrl),
      () => judging.wake(),
    ),
    testIngest: testIngestService(
      storage,
      access,
      once,
      async (projectId) => {
        const channels = await directory.of(projectId);
        return {
          flaky: channels.some((channel) => channel.rules.notify.includes('flaky')),
          builds: channels.some(hearsOfBuilds),
        };
      },
      testsPacing,
      () => testUpkeep.wake(),
    ),
    testUpkeep,
    channels,
    slackInstall: slackInstallService(storage, access, channels, options.slackOAuth),
    testQueries,
    quarantine: quarantineService(storage, access, testQueries),
    headline,
    keyDisplay: keyDisplayService(storage, access),
    judging,
    digests: digestScheduler(storage, options.log),
    verdicts,
    verdictSettings: verdictSettings(storage, access, options.secrets, judging),
    reevaluations: reevaluationService,
    records,
    stats,
    shareLinks,
    retention: retentionService(storage, access, storageUse.outdate),
    exports: exportService(storage, access),
    storageUse,
    imports: importService(
      storage,
      access,
      (projectId, from) => reevaluationService.afterImport(projectId, from),
      (work) => judging.during(work),
    ),
    projectView: projectViewService(storage, { stats, records, shareLinks, headline, verdicts }),
    projectSummaries: projectSummaryService({ projects, stats, testQueries, verdicts }),
    health: healthService(storage),
    /** Forgets Idempotency-Key answers older than their TTL; returns how many. */
    purgeIdempotencyKeys: () => storage.idempotency.purge(Date.now() - IDEMPOTENCY_TTL_MS),
  };
}

export type Services = ReturnType<typeof createServices>;
