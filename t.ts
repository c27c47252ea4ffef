import { z } from 'zod';
const s = z.iso.datetime({ offset: true });
for (const t of ['2026-02-30T00:00:00Z','2026-02-31T25:00:00Z','2026-13-01T00:00:00Z','2026-04-31T00:00:00+03:00','0000-01-01T00:00:00Z','2026-01-01T00:00:00-14:00']) console.log(t, s.safeParse(t).success, Date.parse(t));
