export * from "./message.ts";
export * from "./transcript-entry.ts";
export * from "./transcript-entry-schema.ts";
