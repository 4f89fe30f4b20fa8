import type { CreatedShareLink, ShareLinkList } from '../../contract/share-links.js';
import { sharePath } from '../../contract/share-links.js';
import { generateToken, hashApiKey } from '../domain/api-keys.js';
import { NotFound } from '../domain/domain-errors.js';
import type { Storage } from '../storage/storage.js';
import type { ProjectAccess } from './project-access.js';

/** Share tokens look like this, so a leaked one is easy to recognise. */
const TOKEN_PREFIX = 'cis_share_';
const MAX_TOKEN_LENGTH = 128;

/**
 * Read-only links to a project's statistics: a 256-bit token in the URL, stored only as its
 * SHA-256; revoking one makes the link a 404 at once.
 */
export function shareLinkService(storage: Storage, access: ProjectAccess) {
  return {
    async create(accountId: string, projectId: string, origin: string): Promise<CreatedShareLink> {
      await access.assertOwn({ accountId, projectIds: null }, projectId);
      const token = TOKEN_PREFIX + generateToken();
      await storage.shareLinks.create(
        projectId,
        hashApiKey(token),
        token.slice(0, TOKEN_PREFIX.length + 4),
      );
      return { token, url: `${origin}${sharePath(token)}` };
    },

    async list(accountId: string, projectId: string): Promise<ShareLinkList> {
      await access.assertOwn({ accountId, projectIds: null }, projectId);
      return { links: await storage.shareLinks.list(projectId) };
    },

    async revoke(accountId: string, token: string): Promise<void> {
      if (!(await storage.shareLinks.revoke(hashApiKey(token), accountId))) {
        throw new NotFound('share-link');
      }
    },

    /** Revokes a link by its id (the dashboard's list shows ids, never tokens). */
    async revokeById(accountId: string, id: string): Promise<void> {
      if (!(await storage.shareLinks.revokeById(id, accountId))) throw new NotFound('share-link');
    },

    /** The project a link shows; undefined for an unknown or revoked token. */
    async resolve(token: string): Promise<string | undefined> {
      if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return undefined;
      return (await storage.shareLinks.find(hashApiKey(token)))?.projectId;
    },
  };
}

export type ShareLinkService = ReturnType<typeof shareLinkService>;
