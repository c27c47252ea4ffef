import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, type EventKind } from '../../shared/rules/event-kinds';
import type { Alert, Severity } from '../../shared/schemas/alert';
import type { RuleType } from '../../shared/schemas/notification';
import { defaultSeverity } from '../../shared/rules/severity';
import type { Language } from '../../shared/schemas/directory';
import { formatEventTime } from '../../shared/delivery/format-time';
import { LANGUAGE_FOLDERS, renderDigest, renderNotification, renderQuietHoursTelegram, templatesDir } from '../../shared/delivery/render';
import { buildTemplateData } from '../../shared/delivery/template-data';

const position = { latitude: 40.40926, longitude: 49.86709 };

/** One event per kind, with the values its evaluator attaches. */
const EVENTS: Record<EventKind, Partial<Alert['event']>> = {
  zoneEntry: { ...position, speed: 35, values: { zoneId: 4, zoneName: 'Depot <North> & Yard', zoneIds: '4', zoneCount: 1 } },
  zoneExit: { ...position, speed: 42, values: { zoneId: 4, zoneName: 'Depot <North> & Yard', zoneIds: '4', zoneCount: 1 } },
  speeding: { ...position, speed: 104.4, values: { limit: 90, maxSpeed: 112.3, durationSeconds: 45, zoneId: null, zoneName: null } },
  drain: { ...position, speed: 0, values: { before: 310.4, after: 262.1, volume: 48.3, parameter: 'fuel1' } },
  fuelling: { ...position, speed: 0, values: { before: 120, after: 400.5, volume: 280.5, parameter: 'fuel1' } },
  panic: { ...position, speed: 12, values: { parameter: 'in3' } },
  connectionLost: {
    latitude: null,
    longitude: null,
    speed: null,
    values: { minutes: 30, lastSeenAt: '2026-03-01T09:30:00.000Z', lastDeviceTime: '2026-03-01T09:29:58.000Z' },
  },
  connectionRestored: { ...position, speed: 20, values: { silentSince: '2026-03-01T08:10:00.000Z', silentMinutes: 110 } },
  sensorOn: { ...position, speed: 0, values: { parameter: 'door<1>', value: 1 } },
  sensorOff: { ...position, speed: 0, values: { parameter: 'door<1>', value: 0 } },
  sensorOutOfRange: { ...position, speed: 60, values: { parameter: 'temp', value: 9.5, min: -20, max: 4 } },
  sensorInRange: { ...position, speed: 60, values: { parameter: 'temp', value: 2.5, min: -20, max: 4 } },
  idle: { ...position, speed: 0, values: { idleMinutes: 17, minutes: 15, since: '2026-03-01T09:43:00.000Z' } },
  addressArrival: { ...position, speed: 5, values: { address: 'Nizami <10> & Co, Baku', radius: 100, distance: 42 } },
  addressDeparture: { ...position, speed: 31, values: { address: 'Nizami <10> & Co, Baku', radius: 100, distance: 128 } },
  maintenanceDue: {
    ...position,
    speed: 0,
    values: { counter: 'mileage', parameter: 'mileage', value: 20012, threshold: 20000, interval: 10000, unit: 'km', thresholdsPassed: 1 },
  },
  parking: { ...position, speed: 0, values: { parkedMinutes: 34, minutes: 30, since: '2026-03-01T09:26:00.000Z' } },
  parkingEnded: { ...position, speed: 18, values: { parkedMinutes: 52, parkedSince: '2026-03-01T09:08:00.000Z' } },
  movement: {
    ...position,
    speed: 0,
    values: { distance: 412, stoppedMinutes: 95, stoppedSince: '2026-03-01T08:25:00.000Z', ignitionOff: true },
  },
  drivingLimitNear: {
    ...position,
    speed: 74,
    values: { drivingMinutes: 245, minutesLeft: 25, hours: 4.5, restMinutes: 45, since: '2026-03-01T05:55:00.000Z' },
  },
  drivingLimit: { ...position, speed: 81, values: { drivingMinutes: 270, hours: 4.5, restMinutes: 45, since: '2026-03-01T05:30:00.000Z' } },
  deviceAlarm: { ...position, speed: 38, values: { alarm: 'crash', alarms: 'crash, harshBraking', parameter: 'io247', value: '1' } },
  limitReached: { ...position, speed: 96, values: { maxPerDay: 5, heldKind: 'speeding', resumesAt: '2026-03-01T20:00:00.000Z' } },
  reminder: { ...position, speed: 97, values: { episodeKind: 'speeding', episodeSince: '2026-03-01T09:30:00.000Z', durationMinutes: 30 } },
  cleared: { ...position, speed: 60, values: { episodeKind: 'speeding', episodeSince: '2026-03-01T09:30:00.000Z', durationMinutes: 42 } },
  escalated: {
    ...position,
    speed: 104.4,
    values: { limit: 90, maxSpeed: 112.3, escalatedKind: 'speeding', escalatedAlertId: 'a1', escalateAfter: 15 },
  },
};

/** The rule type that raises each kind (follow-ups and escalations: a speeding rule's), for its default severity. */
const TYPE_OF: Record<EventKind, RuleType> = {
  zoneEntry: 0,
  zoneExit: 0,
  speeding: 2,
  drain: 4,
  fuelling: 5,
  panic: 6,
  connectionLost: 7,
  connectionRestored: 7,
  sensorOn: 8,
  sensorOff: 8,
  sensorOutOfRange: 9,
  sensorInRange: 9,
  addressArrival: 10,
  addressDeparture: 10,
  idle: 11,
  maintenanceDue: 12,
  parking: 13,
  parkingEnded: 13,
  movement: 14,
  drivingLimitNear: 15,
  drivingLimit: 15,
  deviceAlarm: 16,
  limitReached: 2,
  reminder: 2,
  cleared: 2,
  escalated: 2,
};

function render(
  kind: string,
  language: Language,
  event: Partial<Alert['event']>,
  options: {
    vehicleName?: string;
    ruleName?: string;
    timezone?: number | string;
    severity?: Severity;
    override?: { subject?: string; body?: string };
  } = {},
) {
  const alert = {
    ruleName: options.ruleName ?? 'Night & <weekend> watch',
    vehicleId: 12,
    event: { kind, time: '2026-03-01T10:00:00.000Z', latitude: null, longitude: null, speed: null, values: {}, ...event },
  };
  const data = buildTemplateData({ alert, vehicleName: options.vehicleName ?? 'Truck "A&B" <7>', timezone: options.timezone ?? 4, language });
  return renderNotification({ kind, language, data, severity: options.severity ?? 'info', override: options.override });
}

const languages: Language[] = [1, 2, 3];

describe('notification templates', () => {
  it.each(languages.flatMap((language) => EVENT_KINDS.map((kind) => [LANGUAGE_FOLDERS[language], kind, language] as const)))(
    '%s/%s has its own template',
    (folder, kind) => {
      expect(existsSync(path.join(templatesDir(), folder, `${kind}.eta`))).toBe(true);
    },
  );

  for (const language of languages) {
    for (const kind of EVENT_KINDS) {
      it(`renders ${kind} in ${LANGUAGE_FOLDERS[language]}`, () => {
        const severity = defaultSeverity(TYPE_OF[kind], { kind, values: EVENTS[kind].values ?? {} });
        expect(render(kind, language, EVENTS[kind], { severity })).toMatchSnapshot();
      });
    }
    it(`falls back to the generic template for an unknown kind in ${LANGUAGE_FOLDERS[language]}`, () => {
      expect(render('harshBraking', language, { ...position })).toMatchSnapshot();
    });
  }

  it('escapes names for HTML e-mail and Telegram but keeps them plain in the subject and text', () => {
    const rendered = render('zoneEntry', 2, EVENTS.zoneEntry, { vehicleName: '<b>Bus</b> & Co', ruleName: "O'Hare </a>" });
    expect(rendered.subject).toBe('<b>Bus</b> & Co entered Depot <North> & Yard');
    expect(rendered.text).toContain("Rule: O'Hare </a>");
    expect(rendered.telegram).toContain('<b>&lt;b&gt;Bus&lt;/b&gt; &amp; Co</b> entered the geozone <b>Depot &lt;North&gt; &amp; Yard</b>.');
    expect(rendered.telegram).toContain('Rule: O&#39;Hare &lt;/a&gt;');
    expect(rendered.html).toContain('<title>&lt;b&gt;Bus&lt;/b&gt; &amp; Co entered Depot &lt;North&gt; &amp; Yard</title>');
    expect(rendered.html).not.toContain('<b>Bus</b>');
    // the only tags in the Telegram text are the ones Telegram's HTML mode knows
    expect(rendered.telegram.match(/<\/?([a-z]+)/g)?.map((tag) => tag.replace(/[</]/g, ''))).toEqual(['b', 'b', 'b', 'b', 'a', 'a']);
  });

  it('lists every held alert of an e-mail digest in order, in each language, escaped in HTML and plain in the text', () => {
    const alerts = [
      render('speeding', 2, EVENTS.speeding, { vehicleName: 'Truck <1> & Co' }),
      render('zoneExit', 2, EVENTS.zoneExit),
      render('panic', 2, EVENTS.panic),
    ].map(({ subject, text }) => ({ subject, text }));
    for (const language of [1, 2, 3] as const) {
      const digest = renderDigest(language, alerts);
      expect(digest.subject, LANGUAGE_FOLDERS[language]).toContain('3');
      const positions = alerts.map((alert, index) => digest.text.indexOf(`${index + 1}. ${alert.subject}\n${alert.text}`));
      expect(
        positions.every((position) => position > 0),
        LANGUAGE_FOLDERS[language],
      ).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(digest.html).toContain('<b>1. Truck &lt;1&gt; &amp; Co');
      expect(digest.html).not.toContain('Truck <1>');
      expect(digest.html).toContain(`<html lang="${LANGUAGE_FOLDERS[language]}">`);
    }
    expect(renderDigest(2, alerts.slice(0, 1)).subject).toBe('fleetwatch: 1 alert in one e-mail');
    expect(renderDigest(2, alerts).subject).toBe('fleetwatch: 3 alerts in one e-mail');
  });

  it('writes the quiet-hours digest in each language: an e-mail of every alert, and one Telegram message of one line each', () => {
    const alerts = [render('speeding', 2, EVENTS.speeding, { vehicleName: 'Truck <1> & Co' }), render('zoneExit', 2, EVENTS.zoneExit)].map(
      ({ subject, text }) => ({ subject, text }),
    );
    const intros = { 1: 'Тихие часы закончились.', 2: 'Your quiet hours are over.', 3: 'Sakit saatlarınız bitdi.' } as const;
    for (const language of [1, 2, 3] as const) {
      const email = renderDigest(language, alerts, 'quietHoursDigest');
      expect(email.subject, LANGUAGE_FOLDERS[language]).toContain('2');
      expect(email.text).toContain(intros[language]);
      expect(email.text).toContain(`1. ${alerts[0]!.subject}\n${alerts[0]!.text}`);
      expect(email.text.indexOf(`2. ${alerts[1]!.subject}`)).toBeGreaterThan(email.text.indexOf(`1. ${alerts[0]!.subject}`));
      expect(email.html).toContain('<b>1. Truck &lt;1&gt; &amp; Co');

      const telegram = renderQuietHoursTelegram(language, alerts);
      expect(telegram.html.split('\n').slice(1)).toEqual([
        '1. Truck &lt;1&gt; &amp; Co: speeding, 104 km/h',
        '2. Truck &quot;A&amp;B&quot; &lt;7&gt; left Depot &lt;North&gt; &amp; Yard',
      ]);
      expect(telegram.html).toContain(`<b>${intros[language]}</b>`);
      expect(telegram.text.split('\n')).toEqual([expect.stringContaining(intros[language]), `1. ${alerts[0]!.subject}`, `2. ${alerts[1]!.subject}`]);
    }
    expect(renderDigest(2, alerts.slice(0, 1), 'quietHoursDigest').subject).toBe('fleetwatch: 1 alert from your quiet hours');
  });

  it('marks critical and warning alerts in the subject and at the top of the Telegram message, in the language, and leaves info alone', () => {
    const panic = render('panic', 2, EVENTS.panic, { severity: 'critical' });
    expect(panic.subject).toBe('[CRITICAL] PANIC: Truck "A&B" <7>');
    expect(panic.telegram).toMatch(/^🔴 <b>CRITICAL<\/b>\n<b>Panic button<\/b> pressed in /);
    expect(panic.html).toContain('<title>[CRITICAL] PANIC: Truck &quot;A&amp;B&quot; &lt;7&gt;</title>');
    // the plain text of the e-mail says it in the subject only
    expect(panic.text).not.toContain('CRITICAL');
    expect(render('panic', 1, EVENTS.panic, { severity: 'critical' }).subject).toBe('[КРИТИЧНО] ТРЕВОГА: Truck "A&B" <7>');
    expect(render('panic', 3, EVENTS.panic, { severity: 'critical' }).telegram).toMatch(/^🔴 <b>KRİTİK<\/b>\n/);
    const speeding = render('speeding', 1, EVENTS.speeding, { severity: 'warning' });
    expect(speeding.subject).toBe('[ВНИМАНИЕ] Truck "A&B" <7>: превышение скорости, 104 км/ч');
    expect(speeding.telegram).toMatch(/^🟠 <b>ВНИМАНИЕ<\/b>\n/);
    expect(render('speeding', 3, EVENTS.speeding, { severity: 'warning' }).subject).toMatch(/^\[DİQQƏT\] /);
    const zone = render('zoneEntry', 2, EVENTS.zoneEntry, { severity: 'info' });
    expect(zone.subject).toBe('Truck "A&B" <7> entered Depot <North> & Yard');
    expect(zone.telegram).toMatch(/^<b>Truck/);
    // a rule's own wording is marked the same way
    const own = render('speeding', 2, EVENTS.speeding, { severity: 'critical', override: { subject: '{{vehicle}} fast', body: '{{speed}} km/h' } });
    expect(own.subject).toBe('[CRITICAL] Truck "A&B" <7> fast');
    expect(own.telegram).toBe('🔴 <b>CRITICAL</b>\n104 km/h');
  });

  it("renders a rule's own template with the same placeholders, never as code", () => {
    const rendered = render('speeding', 2, EVENTS.speeding, {
      override: {
        subject: '{{vehicle}} over {{limit}}',
        body: 'Speed {{speed}}/{{limit}} <%= process.exit() %> {{values.durationSeconds}}s {{constructor}}\n{{mapUrl}}',
      },
    });
    expect(rendered.subject).toBe('Truck "A&B" <7> over 90');
    expect(rendered.text).toBe(
      'Speed 104/90 <%= process.exit() %> 45s\nhttps://www.openstreetmap.org/?mlat=40.40926&mlon=49.86709#map=16/40.40926/49.86709',
    );
    expect(rendered.telegram).toBe(
      'Speed 104/90 &lt;%= process.exit() %&gt; 45s\nhttps://www.openstreetmap.org/?mlat=40.40926&amp;mlon=49.86709#map=16/40.40926/49.86709',
    );
    expect(rendered.html).toContain('Speed 104/90 &lt;%= process.exit() %&gt; 45s<br>');
  });

  it("reads only the event's own values in a rule's own template, never the prototype chain", () => {
    const inherited = '{{values.__proto__}}|{{values.constructor}}|{{values.toString}}|{{values.hasOwnProperty}}|{{values.limit}}';
    const rendered = render('speeding', 2, EVENTS.speeding, { override: { subject: inherited, body: inherited } });
    expect(rendered.subject).toBe('||||90');
    expect(rendered.text).toBe('||||90');
    expect(rendered.telegram).toBe('||||90');
  });

  it('writes times in the rule timezone, as an offset or an IANA zone', () => {
    expect(formatEventTime('2026-03-01T22:30:00Z', 3, 2)).toBe('2026-03-02 01:30 (UTC+3)');
    expect(formatEventTime('2026-03-01T22:30:00Z', -3.5, 1)).toBe('01.03.2026 19:00 (UTC-3:30)');
    expect(formatEventTime('2026-07-01T12:00:00Z', 'Europe/Berlin', 2)).toBe('2026-07-01 14:00 (Europe/Berlin)');
    expect(formatEventTime('2026-01-01T12:00:00Z', 'Europe/Berlin', 3)).toBe('01.01.2026 13:00 (Europe/Berlin)');
    expect(formatEventTime('2026-01-01T12:00:00Z', 0, 2)).toBe('2026-01-01 12:00 (UTC)');
  });
});
