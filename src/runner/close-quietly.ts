/**
 * Closing is housekeeping: what goes wrong in it (an HTTP exchange aborted, a process already gone)
 * becomes one run note, and the verdicts already in stand. A run closes its target twice (at the
 * end, and on the path that stops it), so a note already taken is not repeated.
 */
export async function closeQuietly(notes: string[], what: string, close: () => Promise<void>): Promise<void> {
  try {
    await close();
  } catch (e) {
    const text = `closing ${what} failed (${(e instanceof Error ? e.message : String(e)).split('\n')[0]}); the verdicts stand`;
    if (!notes.includes(text)) notes.push(text);
  }
}
