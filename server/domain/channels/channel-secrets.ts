/** The sealing contexts of a channel's secrets: a sealed URL moved to another row does not open. */
export const targetContext = (channelId: string) => `channel:${channelId}`;
export const secretContext = (channelId: string) => `channel-secret:${channelId}`;
