import { FORMAT_SAMPLES as F } from '../validate/formats.js';

/**
 * What a parameter is meant to hold, guessed from its name, description and `format`, and values
 * of that kind a real client would send. A server that builds a resource URI from a `uri`
 * argument, or looks a date up, should get a URI or a date, not a placeholder word.
 */

/** What mcpcheck knows about the server that makes arguments realistic. */
export interface ArgumentContext {
  /** URIs of resources the server listed (preferred for URI parameters). */
  resourceUris?: readonly string[];
}

export type Kind =
  | 'uri' | 'url' | 'path' | 'directory' | 'file-name' | 'email' | 'date' | 'date-time' | 'time' | 'uuid' | 'id'
  | 'hostname' | 'ipv4' | 'ipv6' | 'language' | 'locale' | 'country' | 'currency' | 'timezone' | 'color' | 'json'
  | 'mime-type' | 'version' | 'phone' | 'port' | 'page' | 'offset' | 'year' | 'month' | 'day' | 'hour'
  | 'latitude' | 'longitude' | 'percent' | 'dry-run';

/** The value for a parameter of no recognisable kind. */
export const PLACEHOLDER = 'mcpcheck';

/** Values per kind, most realistic first; numbers and booleans for the kinds that are numeric. */
const VALUES: Readonly<Record<Kind, readonly unknown[]>> = {
  uri: [F.uri],
  url: [F.url],
  path: ['/tmp/mcpcheck.txt'],
  // Not an existing directory: a tool may write to, or delete, what it is given.
  directory: ['/tmp/mcpcheck'],
  'file-name': ['mcpcheck.txt'],
  email: [F.email],
  date: [F.date],
  'date-time': [F['date-time']],
  time: [F.time],
  uuid: [F.uuid],
  // Ids no real record is likely to have: under --call-tools all a write tool must not overwrite record 1.
  id: ['mcpcheck-1', 424242],
  hostname: [F.hostname],
  ipv4: [F.ipv4],
  ipv6: [F.ipv6],
  language: ['en'],
  locale: ['en-US'],
  country: ['US'],
  currency: ['USD'],
  timezone: ['UTC'],
  color: ['#3366cc'],
  json: ['{}'],
  'mime-type': ['text/plain'],
  version: ['1.0.0'],
  phone: ['+15555550100'],
  port: [8080],
  page: [1],
  offset: [0],
  year: [2025],
  month: [11],
  day: [25, F.date],
  hour: [12],
  latitude: [48.8566],
  longitude: [2.3522],
  percent: [50],
  // A dry run is the harmless way to call a tool that offers one.
  'dry-run': [true],
};

/** Kinds by a name's last word (its head noun: fileName, user_email, createdAt). */
const BY_LAST_WORD: ReadonlyArray<[RegExp, Kind]> = [
  [/^(?:uri|uris|iri)$/, 'uri'],
  [/^(?:url|urls|link|links|href|endpoint|website|homepage|webhook)$/, 'url'],
  [/^(?:path|paths|filepath|pathname|file|files)$/, 'path'],
  [/^(?:dir|dirs|directory|directories|folder|folders|cwd)$/, 'directory'],
  [/^(?:filename|filenames|basename)$/, 'file-name'],
  [/^(?:email|emails|mail)$/, 'email'],
  [/^(?:date|dates|birthday|birthdate)$/, 'date'],
  [/^(?:datetime|timestamp|at|since|until|time|when)$/, 'date-time'],
  [/^(?:uuid|uuids|guid)$/, 'uuid'],
  [/^(?:id|ids)$/, 'id'],
  [/^(?:host|hostname|domain)$/, 'hostname'],
  [/^(?:ip|ipv4|ips)$/, 'ipv4'],
  [/^ipv6$/, 'ipv6'],
  [/^(?:lang|language|languages)$/, 'language'],
  [/^locale$/, 'locale'],
  [/^country$/, 'country'],
  [/^currency$/, 'currency'],
  [/^(?:timezone|tz)$/, 'timezone'],
  [/^(?:color|colour)$/, 'color'],
  [/^json$/, 'json'],
  [/^(?:mimetype|mime)$/, 'mime-type'],
  [/^version$/, 'version'],
  [/^(?:phone|telephone|mobile)$/, 'phone'],
  [/^port$/, 'port'],
  [/^page$/, 'page'],
  [/^(?:offset|skip|index)$/, 'offset'],
  [/^year$/, 'year'],
  [/^month$/, 'month'],
  [/^day$/, 'day'],
  [/^hour$/, 'hour'],
  [/^(?:lat|latitude)$/, 'latitude'],
  [/^(?:lon|lng|long|longitude)$/, 'longitude'],
  [/^(?:percent|percentage|pct)$/, 'percent'],
];

/** Kinds by the whole name, for compounds the last word alone misreads (content_type, dryRun). */
const BY_NAME: ReadonlyArray<[RegExp, Kind]> = [
  [/^(?:dry_?run|preview|simulate)$/, 'dry-run'],
  [/^(?:content_?type|media_?type|mime_?type)$/, 'mime-type'],
  [/^(?:file_?name|base_?name)$/, 'file-name'],
  [/^date_?time$/, 'date-time'],
  [/^ip_?v?6(?:_?address)?$/, 'ipv6'],
  [/^ip_?(?:v4_?)?address$/, 'ipv4'],
  [/^e_?mail_?address$/, 'email'],
];

/** Kinds by the description, when the name says nothing (most specific first). */
const BY_TEXT: ReadonlyArray<[RegExp, Kind]> = [
  [/\bURI\b/, 'uri'],
  [/\bURL\b|\bweb address\b|\blink to\b/i, 'url'],
  [/\be-?mail\b/i, 'email'],
  [/\bUUID\b|\bGUID\b/i, 'uuid'],
  [/\bdate[- ]?time\b|\btimestamp\b|\bISO[- ]?8601\b|\bRFC[- ]?3339\b/i, 'date-time'],
  [/\bdate\b|\bYYYY-MM-DD\b/i, 'date'],
  [/\bdirectory\b|\bfolder\b/i, 'directory'],
  [/\bfile ?name\b/i, 'file-name'],
  [/\b(?:file|absolute|relative) path\b|\bpath (?:to|of) (?:a|the) file\b/i, 'path'],
  [/\bhost ?name\b|\bdomain name\b/i, 'hostname'],
  [/\bIPv6\b/, 'ipv6'],
  [/\bIP(?:v4)? address\b/i, 'ipv4'],
  [/\blanguage code\b|\bISO[- ]?639\b/i, 'language'],
  [/\blocale\b|\bBCP[- ]?47\b/i, 'locale'],
  [/\btime ?zone\b/i, 'timezone'],
  [/\bcolou?r\b/i, 'color'],
  [/\bJSON\b/, 'json'],
  [/\bMIME type\b|\bmedia type\b|\bcontent type\b/i, 'mime-type'],
];

/** Kinds the JSON Schema `format` names. */
const BY_FORMAT: Readonly<Record<string, Kind>> = {
  uri: 'uri', iri: 'uri', 'uri-reference': 'uri', 'iri-reference': 'uri', url: 'url',
  email: 'email', 'idn-email': 'email', date: 'date', 'date-time': 'date-time', time: 'time',
  uuid: 'uuid', hostname: 'hostname', 'idn-hostname': 'hostname', ipv4: 'ipv4', ipv6: 'ipv6',
};

/** A name's words, lower case: resourceUri → [resource, uri]; note_id → [note, id]; HTTPPort → [http, port]. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** The kind of a parameter, by its `format`, then its name, then its description and title. */
export function kindOf(name: string | undefined, text: string, format?: string): Kind | undefined {
  const byFormat = format !== undefined ? BY_FORMAT[format] : undefined;
  if (byFormat && byFormat !== 'uri') return byFormat;
  // A `uri` format names the syntax; the name says whether a web URL is meant.
  if (name !== undefined) {
    const ws = words(name);
    const joined = ws.join('_');
    for (const [re, kind] of BY_NAME) if (re.test(joined)) return byFormat === 'uri' && kind !== 'url' ? 'uri' : kind;
    const last = ws[ws.length - 1];
    if (last !== undefined) {
      for (const [re, kind] of BY_LAST_WORD) {
        if (re.test(last)) return byFormat === 'uri' && kind !== 'url' ? 'uri' : kind;
      }
    }
  }
  if (byFormat) return byFormat;
  for (const [re, kind] of BY_TEXT) if (re.test(text)) return kind;
  return undefined;
}

/** Candidate values for a kind, most realistic first: listed resource URIs before a sample URI. */
export function valuesOf(kind: Kind, context: ArgumentContext = {}): readonly unknown[] {
  if (kind === 'uri' && context.resourceUris?.length) return [...context.resourceUris, ...VALUES.uri];
  return VALUES[kind];
}

/**
 * A value for a prompt argument, which has only a name and a description (prompt arguments are
 * strings): a value of its kind, else the placeholder.
 */
export function promptArgumentValue(name: string, description: string, context: ArgumentContext = {}): string {
  const kind = kindOf(name, description);
  const value = kind !== undefined ? valuesOf(kind, context).find((v) => typeof v === 'string') : undefined;
  return typeof value === 'string' ? value : PLACEHOLDER;
}
