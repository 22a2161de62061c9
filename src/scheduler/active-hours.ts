/**
 * `heartbeat.activeHours`: whether a moment falls inside a daily window in a time zone.
 * The end may be earlier than the start (a window across midnight, "22:00"–"06:00");
 * equal start and end mean all day.
 */
export interface ActiveHours {
  start: string;
  end: string;
}

const minutesOf = (clock: string): number => {
  const [h, m] = clock.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** Minutes since local midnight of `at` in `timezone` (system zone when undefined). */
export function localMinutes(at: number, timezone?: string): number {
  const parts = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    ...(timezone ? { timeZone: timezone } : {}),
  }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get("hour") * 60 + get("minute");
}

export function withinActiveHours(
  hours: ActiveHours | undefined,
  at: number,
  timezone?: string,
): boolean {
  if (!hours) return true;
  const start = minutesOf(hours.start);
  const end = minutesOf(hours.end);
  if (start === end) return true;
  const now = localMinutes(at, timezone);
  return start < end ? now >= start && now < end : now >= start || now < end;
}
