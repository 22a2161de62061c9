/**
 * A schema migration. Versions are global integers applied in order, each in its own
 * transaction. Ranges per area keep parallel work apart: 1–99 store, 100–199 context,
 * 200–299 agent, 300–399 memory, 400–499 appliance and channels.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
