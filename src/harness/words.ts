/**
 * Splits a command line into words the way a POSIX shell would for plain words, '…' and "…"
 * quotes and backslash escapes, so `--command` runs without a shell. Anything a shell would
 * expand ($, `, globs, pipes, redirections) is refused: that needs --shell.
 */
export function splitWords(line: string): { words: string[] } | { error: string } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { error: 'an unterminated single quote' };
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) j++;
        else if ('$`'.includes(line[j]!)) return { error: `${line[j]} inside double quotes (a shell expansion; use --shell)` };
        word += line[j];
      }
      if (j >= line.length) return { error: 'an unterminated double quote' };
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= line.length) return { error: 'a trailing backslash' };
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if ('|&;<>()$`*?[]'.includes(c)) {
      return { error: `${c} (shell syntax; use --shell)` };
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  if (words.length === 0) return { error: 'no command' };
  return { words };
}
