/**
 * Default HEARTBEAT.md. Only headings and comments, so it counts as effectively empty
 * and heartbeats are skipped until the owner adds a task.
 */
export const HEARTBEAT_MD = `# HEARTBEAT.md

<!--
Tasks for the periodic heartbeat (every 30 minutes by default). While this file holds
only headings and comments, heartbeats are skipped. Example task:

- Check whether a window sensor reports "open" after 22:00 and tell me once.

Reply HEARTBEAT_OK when there is nothing to report.
-->
`;
