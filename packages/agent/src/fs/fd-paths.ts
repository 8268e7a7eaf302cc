// The two paths of each entry a walk touches, built in reused buffers rather than a new
// Buffer per entry: its logical path "<root>/<rel>/<name>" (what the hung-mount probe and
// skip list speak of; never given to a system call) and its descriptor path
// "/proc/self/fd/<N>/<name>" (what is read: beneath.ts). Each is a view valid until the
// next call that builds the same kind; every use is synchronous.
const SLASH_BYTE = 0x2f;

class Scratch {
  buf = Buffer.allocUnsafe(4096);
  /** views[n] = buf.subarray(0, n), made once per length. */
  private views: Buffer[] = [];

  /** Room for `n` bytes, keeping the first `keep`. */
  ensure(n: number, keep: number): void {
    if (n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(n, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, keep);
    this.buf = grown;
    this.views = [];
  }

  view(n: number): Buffer {
    let v = this.views[n];
    if (v === undefined) {
      v = this.buf.subarray(0, n);
      this.views[n] = v;
    }
    return v;
  }
}

export class FdPaths {
  private readonly logical = new Scratch();
  private prefixOf: Buffer | undefined;
  private prefixLen = 0;
  private readonly byFd = new Scratch();
  private fdOfPrefix = -1;
  private fdPrefixLen = 0;

  /** `base`: the root's path, or empty when the root is "/". */
  constructor(private readonly base: Buffer) {}

  /** The logical path of `name` in directory `rel`. */
  child(rel: Buffer, name: Buffer): Buffer {
    const s = this.logical;
    if (rel !== this.prefixOf) {
      s.ensure(this.base.length + rel.length + 2, 0);
      let n = this.base.copy(s.buf, 0);
      s.buf[n++] = SLASH_BYTE;
      if (rel.length > 0) {
        n += rel.copy(s.buf, n);
        s.buf[n++] = SLASH_BYTE;
      }
      this.prefixOf = rel;
      this.prefixLen = n;
    }
    s.ensure(this.prefixLen + name.length, this.prefixLen);
    name.copy(s.buf, this.prefixLen);
    return s.view(this.prefixLen + name.length);
  }

  /** `/proc/self/fd/<fd>/<name>`: `name` looked up in directory descriptor `fd`. */
  atFd(fd: number, name: Buffer): Buffer {
    const s = this.byFd;
    if (fd !== this.fdOfPrefix) {
      const prefix = `/proc/self/fd/${fd}/`;
      s.ensure(prefix.length, 0);
      this.fdPrefixLen = s.buf.write(prefix, 0, 'latin1');
      this.fdOfPrefix = fd;
    }
    s.ensure(this.fdPrefixLen + name.length, this.fdPrefixLen);
    name.copy(s.buf, this.fdPrefixLen);
    return s.view(this.fdPrefixLen + name.length);
  }
}
