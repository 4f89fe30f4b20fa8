/** Values the API reference's examples share (route-docs.ts). */
export const ID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
export const AT = '2026-11-24T10:00:00.000Z';

export const SITE = {
  bio: 'Builds things.',
  avatar_url: 'https://example.com/me.png',
  location: null,
  mood: '🚀',
  theme_id: 'paper',
  visibility: true,
  blocks: [{ id: ID, type: 'link', content: 'https://example.com', enabled: true }],
};

export const PROJECT = { id: ID, name: 'web', created_at: AT };
