// Reading is bounded. Every input of every command is a regular file read with a cap, or is
// streamed with one: `/dev/zero`, a FIFO whose writer never stops, a line past the limit are
// each one DataError line (exit 3) within the test's time limit, never a process that grows
// until the machine kills it.
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, openSync, symlinkSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readJsonlLines } from '../../../src/core/decisions/jsonl.ts'
import { readTextBounded } from '../../../src/core/support/read-bounded.ts'
import { sceptic } from '../../helpers/run.ts'
import { cleanup, decisions, FIRST_SCORER, temp, writeScorer } from '../helpers.ts'

afterAll(cleanup)

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n')
  expect(lines, stderr).toHaveLength(1)
  expect(stderr).not.toMatch(/\n\s+at |unexpected error/)
  return lines[0]!
}

/** A FIFO in a fresh folder, with a writer process that writes `byte` forever (killed after the test). */
function endlessFifo(byte: string): { path: string; stop: () => void } {
  const dir = temp('sceptic-fifo-')
  const path = join(dir, 'endless.jsonl')
  execFileSync('mkfifo', [path])
  const writer = spawn('sh', ['-c', `yes '${byte}' | tr -d '\\n' > '${path}'`], { stdio: 'ignore', detached: true })
  return { path, stop: () => void (writer.pid && process.kill(-writer.pid, 'SIGKILL')) }
}

/** A FIFO that serves `text` once. */
function fifoServing(text: string): { path: string; done: Promise<void> } {
  const dir = temp('sceptic-fifo-')
  const path = join(dir, 'served.jsonl')
  execFileSync('mkfifo', [path])
  const writer = spawn('sh', ['-c', `cat > '${path}'`], { stdio: ['pipe', 'ignore', 'ignore'] })
  writer.stdin.end(text)
  return { path, done: new Promise((resolve) => writer.on('close', () => resolve())) }
}

/** A regular file holding one line of `bytes` bytes (sparse: no disk used) after a good line. */
function hugeLineFile(bytes: number): string {
  const dir = temp('sceptic-huge-')
  const path = join(dir, 'huge.jsonl')
  const fd = openSync(path, 'w')
  writeSync(fd, JSON.stringify(decisions(1)[0]) + '\n')
  writeSync(fd, 'x', bytes)
  closeSync(fd)
  return path
}

const MiB = 1024 * 1024

describe('reading a decision file is bounded (the library reader)', () => {
  it('/dev/zero: a DataError naming line 1 and the limit, after reading at most the limit', async () => {
    const read = async () => {
      for await (const _ of readJsonlLines('/dev/zero', { maxLineBytes: 4 * MiB })) void _
    }
    await expect(read()).rejects.toThrow(/\/dev\/zero:1: is longer than 4 MiB, the longest line a decision file may hold/)
  }, 20_000)

  it('a FIFO whose writer never sends a newline: the same DataError, not a hang', async () => {
    const fifo = endlessFifo('a')
    try {
      const read = async () => {
        for await (const _ of readJsonlLines(fifo.path, { maxLineBytes: 2 * MiB })) void _
      }
      await expect(read()).rejects.toThrow(/endless\.jsonl:1: is longer than 2 MiB/)
    } finally {
      fifo.stop()
    }
  }, 20_000)

  it.each([
    ['whole-file reading', {}],
    ['streamed reading', { streamAbove: 0, chunkBytes: 4096 }],
  ])('a regular file with a line past the limit (%s): a DataError naming line 2', async (_, options) => {
    const path = hugeLineFile(3 * MiB)
    const read = async () => {
      for await (const _ of readJsonlLines(path, { ...options, maxLineBytes: 2 * MiB })) void _
    }
    await expect(read()).rejects.toThrow(/huge\.jsonl:2: is longer than 2 MiB/)
  }, 20_000)

  it('a line at the limit is read (the limit is inclusive), and a FIFO with ordinary content is read whole', async () => {
    const dir = temp('sceptic-limit-')
    const path = join(dir, 'at.jsonl')
    writeFileSync(path, 'y'.repeat(1000) + '\nz\n')
    const lines: number[] = []
    for await (const { text } of readJsonlLines(path, { maxLineBytes: 1000, streamAbove: 0, chunkBytes: 7 })) lines.push(text.length)
    expect(lines).toEqual([1000, 1])
    const served = fifoServing('{"a":1}\n{"b":2}\n')
    const texts: string[] = []
    for await (const { text } of readJsonlLines(served.path)) texts.push(text)
    await served.done
    expect(texts).toEqual(['{"a":1}', '{"b":2}'])
  }, 20_000)
})

describe('reading a whole JSON file is bounded (run JSON, records, part files)', () => {
  it('/dev/zero and an endless FIFO: a DataError naming the cap', async () => {
    await expect(readTextBounded('/dev/zero', { maxBytes: 3 * MiB })).rejects.toThrow(/\/dev\/zero: is larger than 3 MiB, the most this command reads from one file/)
    const fifo = endlessFifo('b')
    try {
      await expect(readTextBounded(fifo.path, { maxBytes: 2 * MiB })).rejects.toThrow(/is larger than 2 MiB/)
    } finally {
      fifo.stop()
    }
  }, 20_000)

  it('a regular file past the cap is refused before a byte is read', async () => {
    const path = hugeLineFile(64 * MiB)
    await expect(readTextBounded(path, { maxBytes: MiB })).rejects.toThrow(/huge\.jsonl: is larger than 1 MiB/)
  })
})

describe('every command that reads a file, on /dev/zero: exit 3, one line, within the time limit', () => {
  const dir = temp('sceptic-zero-')
    const scorer = writeScorer(dir, FIRST_SCORER)
  /** A records file whose part file (beside it) is a link to /dev/zero. */
  function zeroPart(): string {
    writeFileSync(join(dir, 'a.records.jsonl'), '')
    symlinkSync('/dev/zero', join(dir, 'a.records.shard.jsonl'))
    return join(dir, 'a.records.jsonl')
  }
  it.each([
    ['evaluate DATA', ['evaluate', '/dev/zero', '--scorer', scorer], /\/dev\/zero:1: is longer than 64 MiB/],
    ['report RUN', ['report', '/dev/zero', '--html-out', join(dir, 'r.html')], /\/dev\/zero: is larger than 256 MiB/],
    ['compare A B', ['compare', '/dev/zero', '/dev/zero'], /\/dev\/zero: is larger than 256 MiB/],
    ['merge PART (its part file is /dev/zero)', ['merge', zeroPart(), '--json-out', join(dir, 'm.json')], /a\.records\.shard\.jsonl: is larger than 256 MiB/],
    ['split DATA', ['split', '/dev/zero', '--eval-fraction', '0.5', '--train-out', join(dir, 't.jsonl'), '--eval-out', join(dir, 'e.jsonl')], /\/dev\/zero:1: is longer than 64 MiB/],
  ])('%s', async (_, args, message) => {
    const { code, stderr } = await sceptic(args as string[], { timeoutMs: 30_000 })
    expect(code, stderr).not.toBe(0)
    expect(oneLine(stderr)).toMatch(message)
  }, 40_000)
})
