// Reads the log the serve fixture's `steps` graph writes (test/fixtures/serve/src): one line per
// finished step, with the pid of the process that ran it, so a test sees which steps ran where.
import { readFile } from "node:fs/promises";

export async function recorded(file: string): Promise<Array<{ step: string; pid: number }>> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [step, pid] = line.split(" ");
      return { step: step!, pid: Number(pid) };
    });
}
