/**
 * One valid value per string format, for filling a value in (argument synthesis) and for standing
 * in for a value the client supplied (echo.ts).
 */
const SAMPLES = {
  email: 'mcpcheck@example.com',
  'idn-email': 'mcpcheck@example.com',
  uri: 'https://example.com/mcpcheck',
  iri: 'https://example.com/mcpcheck',
  'uri-reference': 'https://example.com/mcpcheck',
  'iri-reference': 'https://example.com/mcpcheck',
  url: 'https://example.com/mcpcheck',
  'uri-template': 'https://example.com/mcpcheck/{id}',
  date: '2025-11-25',
  'date-time': '2025-11-25T12:00:00Z',
  time: '12:00:00Z',
  duration: 'PT1S',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  'json-pointer': '/mcpcheck',
  'relative-json-pointer': '0',
  regex: '^mcpcheck$',
} as const;
export const FORMAT_SAMPLES: Readonly<Record<string, string>> & typeof SAMPLES = SAMPLES;
