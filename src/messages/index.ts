/**
 * The data shapes every area shares: messages (user, assistant with content blocks,
 * tool results) and transcript entries, with the schema that checks them when read.
 */
export * from "./message.ts";
export * from "./transcript-entry.ts";
export * from "./transcript-entry-schema.ts";
