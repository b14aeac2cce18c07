// The secrets editor's rows and what is sent for them. A stored secret's value stays the mask until
// replaced: the API keeps the stored value for a secret sent back as `********`.
import type { Secret } from "./api.js";

export const MASK = "********";

export interface SecretRow {
  name: string;
  value: string;
  /** Came from the API, so its value is stored there and not known here. */
  stored: boolean;
}

export const storedRows = (secrets: Secret[]): SecretRow[] => secrets.map(({ name }) => ({ name, value: MASK, stored: true }));

/** Rows with a name, as the API's `secrets`; a row with neither name nor value is ignored. */
export function secretsBody(rows: SecretRow[]): Secret[] {
  return rows.filter((row) => row.name.trim() !== "" || (row.value !== "" && row.value !== MASK)).map((row) => ({ name: row.name.trim(), value: row.value }));
}
