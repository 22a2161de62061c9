export * from "./message.ts";
export * from "./transcript-entry.ts";
