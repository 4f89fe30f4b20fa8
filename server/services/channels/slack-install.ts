import { createHash } from 'node:crypto';
import { parseChannelTarget } from '../../../contract/channel-targets.js';
import {
  type ChannelInfo,
  ChannelLimits,
  CreateChannelRequest,
} from '../../../contract/channels.js';
import { generateToken, hashApiKey } from '../../domain/api-keys.js';
import { Conflict } from '../../domain/domain-errors.js';
import { type SlackOAuth, SlackOAuthRefused } from '../../providers/channels/slack-oauth.js';
import type { Storage } from '../../storage/storage.js';
import type { ProjectAccess } from '../project-access.js';
import type { ChannelService } from './channel-service.js';

/** How long Slack's round trip may take: the person reads Slack's page and picks a channel. */
export const INSTALL_TTL_MS = 10 * 60 * 1000;
/** Installations an account may have under way at once (older ones are forgotten). */
const PENDING_PER_ACCOUNT = 10;

/** The rules an installed channel starts with, as the add form's defaults (edited afterwards). */
const FIRST_RULES = { notify: ['failures', 'changes'] as ('failures' | 'changes')[] };

/** Why an installation ended without a channel; nothing was stored. */
export class SlackInstallRefused extends Error {
  constructor(
    readonly reason: 'not-configured' | 'state' | 'denied' | 'slack' | 'too-many',
    /** Slack's own error code, when it gave one. */
    readonly code?: string,
  ) {
    super(`Slack installation refused: ${reason}${code ? ` (${code})` : ''}`);
  }
}

/** Who asks: the signed-in account and its session's own secret, which the state is bound to. */
export interface InstallCaller {
  accountId: string;
  sessionSecret: string;
}

/** A session's tag: its secret's hash, so the table never holds the secret itself. */
const sessionTagOf = (sessionSecret: string) =>
  createHash('sha256').update(`slack-install:${sessionSecret}`).digest('hex');

/** A Slack error code as it may be shown: Slack's are lower-case words and underscores. */
const codeOf = (value: string | undefined) =>
  value && /^[a-z0-9_.]{1,60}$/.test(value) ? value : 'an unknown error';

/**
 * "Add to Slack" (docs/notifications.md#add-to-slack): `start` remembers a state for the owner's
 * session and project and answers Slack's authorize address; `finish`, when Slack sends the
 * browser back, takes that state (once, by the same session, before it expires), exchanges the
 * code for the bot token and makes a `slack-app` channel to the channel picked in Slack, through
 * the channel service (so the token is sealed as a pasted one is).
 */
export function slackInstallService(
  storage: Storage,
  access: ProjectAccess,
  channels: ChannelService,
  oauth: SlackOAuth | undefined,
) {
  const configured = (): SlackOAuth => {
    if (!oauth) throw new SlackInstallRefused('not-configured');
    return oauth;
  };

  return {
    configured: () => oauth !== undefined,

    async start(caller: InstallCaller, projectId: string, redirectUri: string): Promise<string> {
      const slack = configured();
      await access.assertOwn({ accountId: caller.accountId, projectIds: null }, projectId);
      const state = generateToken();
      const now = Date.now();
      await storage.slackInstalls.create(
        {
          stateHash: hashApiKey(state),
          sessionTag: sessionTagOf(caller.sessionSecret),
          accountId: caller.accountId,
          projectId,
          redirectUri,
          expiresAt: now + INSTALL_TTL_MS,
        },
        now,
        PENDING_PER_ACCOUNT,
      );
      return slack.authorizeUrl(state, redirectUri);
    },

    async finish(
      caller: InstallCaller,
      answer: { state?: string; code?: string; error?: string },
    ): Promise<ChannelInfo> {
      const slack = configured();
      const state = answer.state ?? '';
      const taken =
        state.length > 0 && state.length <= 128
          ? await storage.slackInstalls.take(
              hashApiKey(state),
              sessionTagOf(caller.sessionSecret),
              Date.now(),
            )
          : undefined;
      if (!taken || taken.accountId !== caller.accountId) throw new SlackInstallRefused('state');
      if (answer.error !== undefined) {
        throw new SlackInstallRefused(
          answer.error === 'access_denied' ? 'denied' : 'slack',
          codeOf(answer.error),
        );
      }
      const code = answer.code ?? '';
      if (code.length === 0 || code.length > 255) throw new SlackInstallRefused('slack', 'no code');
      let installed: Awaited<ReturnType<SlackOAuth['exchange']>>;
      try {
        installed = await slack.exchange(code, taken.redirectUri);
      } catch (error) {
        if (error instanceof SlackOAuthRefused) throw new SlackInstallRefused('slack', error.code);
        throw error;
      }
      // The channel's link as Slack's "Copy link" gives it, on the workspace's own host.
      const host = installed.workspaceHost ?? 'app.slack.com';
      const target = parseChannelTarget(
        'slack-app',
        `https://${host}/archives/${installed.channelId}`,
      );
      if (!target) throw new SlackInstallRefused('slack', 'no channel in its answer');
      const name = `${installed.channelName} · ${installed.teamName}`
        .replace(/[\p{Cc}]/gu, '')
        .slice(0, ChannelLimits.name);
      // Judged as create-channel judges a request: Slack's answer is input like any other.
      const request = CreateChannelRequest.safeParse({
        projectId: taken.projectId,
        kind: 'slack-app',
        name,
        url: target.url,
        rules: FIRST_RULES,
        token: installed.token,
      });
      if (!request.success) throw new SlackInstallRefused('slack', 'an unusable answer');
      try {
        return await channels.create(caller.accountId, request.data);
      } catch (error) {
        if (error instanceof Conflict) throw new SlackInstallRefused('too-many');
        throw error;
      }
    },
  };
}

export type SlackInstallService = ReturnType<typeof slackInstallService>;
