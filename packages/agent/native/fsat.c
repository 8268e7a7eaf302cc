// The agent's calls on a directory descriptor, for the walk. Node has none, so without
// this the walk reaches a name through the descriptor's magic link,
// "/proc/self/fd/N/name": confined the same way, but the kernel cannot resolve a magic link
// in its fast (RCU) path walk, so every such lookup is done twice, the second time through
// procfs's checks. Here a name is looked up in that directory and nothing else:
// - lstatAt: statx(N, name, AT_SYMLINK_NOFOLLOW) (fstatat's lookup; statx because glibc has
//   had it since 2.28, the packages' floor, where fstatat's own symbol is 2.33's);
// - openAt: openat(N, name, O_PATH|O_NOFOLLOW|O_CLOEXEC[|O_DIRECTORY]): a handle for
//   lookups only, never for reading, so a FIFO or a device is never opened for I/O.
// - openDirRead: a descriptor to read a directory's entries from, by
//   openat(N, ".", O_RDONLY|O_DIRECTORY) (no lookup but the directory itself): a directory
//   is otherwise read by opening its magic link "/proc/self/fd/N", one more procfs walk.
// - readPacked: a directory read and stat'ed in one call: one getdents64 chunk on the read
//   descriptor, then statx(fd, name, AT_SYMLINK_NOFOLLOW) of each of its entries on that same
//   descriptor (confined to the directory as lstatAt is), written as fixed-size records into
//   the caller's Buffer, the names left where getdents64 put them in the same Buffer: no
//   JavaScript object per entry, one crossing into C per chunk (packed-dir.ts reads them).
// - mountsChanged: poll(2) of a kept /proc/self/mountinfo descriptor for POLLPRI, which the
//   kernel raises once a mount or unmount happened since the last poll: the table is read
//   again only then, where reading it costs a walk the kernel's printing of every mount.
// - openDirs: openAt of several names, each in the directory the one before it opened, in
//   one task on libuv's pool (a request path's resolution, fs/confined-path.ts): node:fs
//   has no call that does it, and one round trip per name cost a small walk more than its
//   listing on the main thread.
// A name must be one component: no "/", no NUL, not "." or "..". Read-only: nothing here
// reads a file or changes anything; the only descriptor opened for reading is a directory's.
// Node-API, so one build serves Node 20, 22 and 24 and the packaged runtime.
#define NAPI_VERSION 8
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <node_api.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

// The fields written to `out`, in this order (native-stat.ts reads them by the same names).
enum { F_MODE, F_SIZE, F_MTIME_SEC, F_MTIME_NSEC, F_UID, F_GID, F_INO, F_NLINK, F_DEV, F_BLOCKS, F_COUNT };

static napi_value number(napi_env env, int32_t v) {
  napi_value out;
  napi_create_int32(env, v, &out);
  return out;
}

static napi_value type_error(napi_env env, const char* msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}

/* The elements of `value` and their count, when it is a typed array of `type`; false when it is not one. */
static bool typed_of(napi_env env, napi_value value, napi_typedarray_type type, void** data, size_t* count) {
  bool is = false;
  napi_typedarray_type is_type;
  return napi_is_typedarray(env, value, &is) == napi_ok && is &&
         napi_get_typedarray_info(env, value, &is_type, count, data, NULL, NULL) == napi_ok && is_type == type;
}

/* One component of a directory, copied NUL-terminated into `name`; EINVAL when it is not one. */
static int one_component(napi_env env, napi_value value, char name[NAME_MAX + 1]) {
  void* data;
  size_t len;
  napi_get_buffer_info(env, value, &data, &len);
  if (len == 0 || len > NAME_MAX || memchr(data, '/', len) != NULL || memchr(data, 0, len) != NULL) return EINVAL;
  memcpy(name, data, len);
  name[len] = 0;
  if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return EINVAL;
  return 0;
}

/* A call `fn(dirFd, name, third)` as read: `bad` is EINVAL when the name is not one component, else 0. */
struct at_call {
  int32_t fd;
  char name[NAME_MAX + 1];
  napi_value third;
  int bad;
};

/* Reads the call's arguments into `c`; false when it threw a TypeError naming the wrong one. */
static bool at_args(napi_env env, napi_callback_info info, const char* fn, struct at_call* c) {
  size_t argc = 3;
  napi_value argv[3];
  bool is_buffer = false;
  const char* wrong = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3)
    wrong = "takes three arguments";
  else if (napi_get_value_int32(env, argv[0], &c->fd) != napi_ok)
    wrong = "dirFd must be a number";
  else if (napi_is_buffer(env, argv[1], &is_buffer) != napi_ok || !is_buffer)
    wrong = "name must be a Buffer";
  if (wrong != NULL) {
    char msg[64];
    snprintf(msg, sizeof msg, "%s: %s", fn, wrong);
    napi_throw_type_error(env, NULL, msg);
    return false;
  }
  c->third = argv[2];
  c->bad = one_component(env, argv[1], c->name);
  return true;
}

// lstatAt(dirFd: number, name: Buffer, out: Float64Array) -> 0, or the errno. Not followed
// if it is a symlink.
static napi_value lstat_at(napi_env env, napi_callback_info info) {
  struct at_call c;
  if (!at_args(env, info, "lstatAt", &c)) return NULL;
  size_t count = 0;
  void* out_data = NULL;
  if (!typed_of(env, c.third, napi_float64_array, &out_data, &count) || count < F_COUNT)
    return type_error(env, "lstatAt: out must be a Float64Array of 10");
  if (c.bad != 0) return number(env, c.bad);

  // AT_NO_AUTOMOUNT: as lstat(2) and find do, an automount point is described, not mounted
  // (a lister must not mount every map of an autofs directory it passes).
  struct statx st;
  if (statx(c.fd, c.name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &st) != 0) return number(env, errno);
  double* out = out_data;
  out[F_MODE] = st.stx_mode;
  out[F_SIZE] = (double)st.stx_size;
  out[F_MTIME_SEC] = (double)st.stx_mtime.tv_sec;
  out[F_MTIME_NSEC] = (double)st.stx_mtime.tv_nsec;
  out[F_UID] = st.stx_uid;
  out[F_GID] = st.stx_gid;
  out[F_INO] = (double)st.stx_ino;
  out[F_NLINK] = (double)st.stx_nlink;
  // As libuv makes st_dev from statx (what node:fs reports).
  out[F_DEV] = (double)makedev(st.stx_dev_major, st.stx_dev_minor);
  out[F_BLOCKS] = (double)st.stx_blocks;
  return number(env, 0);
}

// openAt(dirFd: number, name: Buffer, dir: boolean) -> a descriptor (O_PATH), or -errno.
// `dir`: it must be a directory (a symlink fails with ELOOP or ENOTDIR).
static napi_value open_at(napi_env env, napi_callback_info info) {
  struct at_call c;
  if (!at_args(env, info, "openAt", &c)) return NULL;
  bool dir;
  if (napi_get_value_bool(env, c.third, &dir) != napi_ok) return type_error(env, "openAt: dir must be a boolean");
  if (c.bad != 0) return number(env, -c.bad);
  int opened = openat(c.fd, c.name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
  return number(env, opened >= 0 ? opened : -errno);
}

/* The one int32 argument of `fn`, named `what` in its TypeError; false when it threw. */
static bool fd_arg(napi_env env, napi_callback_info info, const char* fn, const char* what, size_t want, napi_value* argv,
                   int32_t* fd) {
  size_t argc = want;
  char msg[64];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != want) {
    snprintf(msg, sizeof msg, "%s: takes %s", fn, want == 1 ? "one argument" : "two arguments");
  } else if (napi_get_value_int32(env, argv[0], fd) != napi_ok) {
    snprintf(msg, sizeof msg, "%s: %s must be a number", fn, what);
  } else {
    return true;
  }
  napi_throw_type_error(env, NULL, msg);
  return false;
}

// openDirRead(dirFd: number) -> a descriptor of the same directory open for reading, or
// -errno (EACCES: it may be looked up in but not listed). "." is the directory itself, never
// a symlink: O_NOFOLLOW changes nothing, it only keeps every open here without following.
// A directory that may be read but not searched (r--) refuses the lookup of its "." with
// EACCES: it is then opened through its descriptor's magic link, the same inode (no name is
// looked up in it), so its names are listed and each entry's stat fails as node:fs's does.
static napi_value open_dir_read(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t fd;
  if (!fd_arg(env, info, "openDirRead", "dirFd", 1, argv, &fd)) return NULL;
  int opened = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (opened < 0 && errno == EACCES) {
    char link[32];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    opened = open(link, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    // No procfs, or not readable either: the lookup's own answer.
    if (opened < 0) errno = EACCES;
  }
  return number(env, opened >= 0 ? opened : -errno);
}

// The packed records readPacked writes (packed-dir.ts reads them by the same offsets): REC
// bytes each from the Buffer's start, the getdents64 chunk in its last DENTS bytes.
enum {
  REC = 72,
  R_SIZE = 0,       // f64
  R_BLOCKS = 8,     // f64
  R_MTIME_SEC = 16, // f64
  R_INO = 24,       // f64
  R_DEV = 32,       // f64, as libuv makes st_dev
  R_MTIME_NSEC = 40, // i32
  R_MODE = 44,      // u32
  R_UID = 48,       // u32
  R_GID = 52,       // u32
  R_NLINK = 56,     // u32
  R_NAME_OFF = 60,  // u32: the name's first byte in the Buffer
  R_NAME = 64,      // u32: the name's length | d_type << 16 | S_* << 24 (one word: either byte order)
  R_ERRNO = 68,     // i32: statx's errno when S_FAILED
  DENTS = 32 * 1024,
  // The shortest linux_dirent64 is 24 bytes (19 of header, a name of one byte, its NUL, padding).
  MAX_RECORDS = DENTS / 24 + 1,
};
enum { S_NAME_ONLY = 0, S_STATED = 1, S_FAILED = 2 };
// The hung-mount probe (call-probe.ts): int32 slots, then the path at PROBE_PATH.
enum { PROBE_SEQ = 1, PROBE_LEN = 2, PROBE_PATH = 32, PROBE_PATH_MAX = 4096 };

struct dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* The probe's path becomes "<dir>/<name>" (cut at its end) and its sequence moves on: a call per entry. */
static void probe_entry(uint8_t* probe, int32_t dir_len, const char* name, size_t len) {
  uint8_t* path = probe + PROBE_PATH;
  size_t at = (size_t)dir_len;
  if (at < PROBE_PATH_MAX) path[at++] = '/';
  size_t n = len < PROBE_PATH_MAX - at ? len : PROBE_PATH_MAX - at;
  memcpy(path + at, name, n);
  int32_t* ctl = (int32_t*)probe;
  __atomic_store_n(&ctl[PROBE_LEN], (int32_t)(at + n), __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&ctl[PROBE_SEQ], 1, __ATOMIC_SEQ_CST);
}

/* A Buffer's or typed array's bytes; false when `value` is neither. */
static bool bytes_of(napi_env env, napi_value value, uint8_t** data, size_t* len) {
  bool is = false;
  if (napi_is_buffer(env, value, &is) == napi_ok && is)
    return napi_get_buffer_info(env, value, (void**)data, len) == napi_ok;
  return typed_of(env, value, napi_uint8_array, (void**)data, len);
}

/*
 * A directory read's last two arguments (readPacked's, readArena's): the walk's hung-mount
 * probe (null, or its Uint8Array) and the length of the directory's path in it; false when it
 * threw a TypeError naming the wrong one.
 */
static bool probe_args(napi_env env, const char* fn, const napi_value* argv, uint8_t** probe, int32_t* dir_len) {
  napi_valuetype type = napi_null;
  size_t len = 0;
  const char* wrong = NULL;
  if (napi_typeof(env, argv[0], &type) != napi_ok ||
      (type != napi_null && (!bytes_of(env, argv[0], probe, &len) || len < PROBE_PATH + PROBE_PATH_MAX ||
                             ((uintptr_t)*probe & 3) != 0)))
    wrong = "probe must be null or the probe's Uint8Array of 4,128 bytes";
  else if (napi_get_value_int32(env, argv[1], dir_len) != napi_ok || *dir_len < 0 || *dir_len > PROBE_PATH_MAX)
    wrong = "dirLen must be a number from 0 to 4096";
  if (wrong == NULL) return true;
  char msg[96];
  snprintf(msg, sizeof msg, "%s: %s", fn, wrong);
  napi_throw_type_error(env, NULL, msg);
  return false;
}

/*
 * One getdents64 chunk of a directory, read entry by entry (readPacked and readArena read their
 * directories by it): `n` bytes of records in `dents`, 0 at the directory's end, or -errno
 * when the read failed; `at`, the next record.
 */
struct chunk {
  const uint8_t* dents;
  long n;
  long at;
};

/* The directory's next chunk, read into `dents` (DENTS bytes). */
static struct chunk read_chunk(int fd, uint8_t* dents) {
  const long n = syscall(SYS_getdents64, fd, dents, (unsigned int)DENTS);
  return (struct chunk){dents, n < 0 ? -errno : n, 0};
}

/*
 * The chunk's next entry, "." and ".." passed over: 1 with its record and its name's length,
 * 0 at the chunk's end, -EIO for a record the kernel would not write (the read's error).
 */
static int next_entry(struct chunk* c, const struct dirent64** out, size_t* name_len) {
  while (c->at < c->n) {
    const struct dirent64* d = (const struct dirent64*)(c->dents + c->at);
    if (d->d_reclen < 20 || c->at + d->d_reclen > c->n) return -EIO;
    c->at += d->d_reclen;
    const char* name = d->d_name;
    const size_t len = strnlen(name, d->d_reclen - 19);
    if (len == 0 || len == (size_t)(d->d_reclen - 19)) return -EIO;
    if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.'))) continue;
    *out = d;
    *name_len = len;
    return 1;
  }
  return 0;
}

/*
 * One directory entry's packed record at `r` (its name's offset already written): its name
 * length, d_type and state, and, where `mask` asks for its d_type, its statx(2) on the
 * directory's descriptor, not following it (readPacked's chunks and readArena's arenas alike).
 */
static void fill_record(uint8_t* r, int fd, const struct dirent64* d, size_t name_len, uint32_t mask, uint8_t* probe,
                        int32_t dir_len) {
  const char* name = d->d_name;
  const uint32_t named = (uint32_t)name_len | (uint32_t)d->d_type << 16;
  if ((mask & (1u << (d->d_type & 31))) == 0) {
    *(uint32_t*)(r + R_NAME) = named | (uint32_t)S_NAME_ONLY << 24;
    return;
  }
  if (probe != NULL) probe_entry(probe, dir_len, name, name_len);
  struct statx st;
  if (statx(fd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &st) != 0) {
    *(uint32_t*)(r + R_NAME) = named | (uint32_t)S_FAILED << 24;
    *(int32_t*)(r + R_ERRNO) = errno;
    return;
  }
  *(uint32_t*)(r + R_NAME) = named | (uint32_t)S_STATED << 24;
  *(double*)(r + R_SIZE) = (double)st.stx_size;
  *(double*)(r + R_BLOCKS) = (double)st.stx_blocks;
  *(double*)(r + R_MTIME_SEC) = (double)st.stx_mtime.tv_sec;
  *(double*)(r + R_INO) = (double)st.stx_ino;
  *(double*)(r + R_DEV) = (double)makedev(st.stx_dev_major, st.stx_dev_minor);
  *(int32_t*)(r + R_MTIME_NSEC) = (int32_t)st.stx_mtime.tv_nsec;
  *(uint32_t*)(r + R_MODE) = st.stx_mode;
  *(uint32_t*)(r + R_UID) = st.stx_uid;
  *(uint32_t*)(r + R_GID) = st.stx_gid;
  *(uint32_t*)(r + R_NLINK) = st.stx_nlink;
}

// readPacked(fd: number, buf: Buffer, statMask: number, probe: Uint8Array | null, dirLen: number)
// -> records written (>= 1), 0 at the end of the directory, or -errno of getdents64.
// `fd`: a directory open for reading (openDirRead). An entry whose d_type's bit is set in
// `statMask` is statx'ed (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, as lstatAt); the others get
// their name and d_type only (S_NAME_ONLY), for the caller to stat later if it keeps them.
// `probe`: the walk's hung-mount probe, its path already the directory's (`dirLen` bytes):
// each statx is announced there as "<dir>/<name>", so a stat that hangs names its entry.
static napi_value read_packed(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  int32_t fd, dir_len = 0;
  uint32_t mask;
  uint8_t* buf = NULL;
  size_t len = 0;
  uint8_t* probe = NULL;
  const char* wrong = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5)
    wrong = "readPacked: takes five arguments";
  else if (napi_get_value_int32(env, argv[0], &fd) != napi_ok)
    wrong = "readPacked: fd must be a number";
  else if (!bytes_of(env, argv[1], &buf, &len) || len < (size_t)MAX_RECORDS * REC + DENTS || ((uintptr_t)buf & 7) != 0)
    wrong = "readPacked: buf must be an 8-byte aligned Buffer of at least 131,120 bytes";
  else if (napi_get_value_uint32(env, argv[2], &mask) != napi_ok)
    wrong = "readPacked: statMask must be a number";
  if (wrong != NULL) return type_error(env, wrong);
  if (!probe_args(env, "readPacked", argv + 3, &probe, &dir_len)) return NULL;

  for (;;) {
    struct chunk c = read_chunk(fd, buf + len - DENTS);
    if (c.n <= 0) return number(env, (int32_t)c.n);
    int32_t count = 0;
    const struct dirent64* d;
    size_t name_len;
    int got;
    while ((got = next_entry(&c, &d, &name_len)) > 0) {
      uint8_t* r = buf + (size_t)count++ * REC;
      *(uint32_t*)(r + R_NAME_OFF) = (uint32_t)((const uint8_t*)d->d_name - buf);
      fill_record(r, fd, d, name_len, mask, probe, dir_len);
    }
    if (got < 0) return number(env, got);
    if (probe != NULL) __atomic_store_n(&((int32_t*)probe)[PROBE_LEN], dir_len, __ATOMIC_SEQ_CST);
    // A chunk of "." and ".." only: the next one (the end is said by getdents64's 0).
    if (count > 0) return number(env, count);
  }
}

// A directory's packed records gathered whole, sorted in the walk's name order, and encoded
// as the Walk response's rows straight from the records (packed-tree.ts): the tree walk
// makes no JavaScript object per entry. The arena is two Buffers: `recs` (a 16-byte header:
// u32 records kept, u32 name bytes used, u32 entries read, u32 records ever appended, then REC-byte records as
// readPacked writes them, R_NAME_OFF counted from `names`' start) and `names`.
enum { A_COUNT = 0, A_NAMES = 1, A_READ = 2, A_ADDED = 3, A_HEADER = 16 };

/* Folded bytes, shorter first, raw bytes breaking ties: core order.ts compareNames. */
static int compare_names(const uint8_t* a, size_t la, const uint8_t* b, size_t lb) {
  size_t n = la < lb ? la : lb;
  for (size_t i = 0; i < n; i++) {
    int x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x += 32;
    if (y >= 'A' && y <= 'Z') y += 32;
    if (x != y) return x - y;
  }
  if (la != lb) return la < lb ? -1 : 1;
  int c = memcmp(a, b, n);
  return c;
}

struct sort_ctx {
  const uint8_t* recs;
  const uint8_t* names;
  int sign;
};

/*
 * A record in the sort: its first 8 name bytes folded, big-endian, 0-padded (names hold no
 * NUL, so a shorter name's padding sorts it first, as compare_names does), and its index.
 * Most comparisons end on the key, without reaching into the records and names.
 */
struct sort_item {
  uint64_t key;
  uint32_t at;
};

static uint64_t name_key(const uint8_t* name, size_t len) {
  uint64_t key = 0;
  for (size_t i = 0; i < 8; i++) {
    int b = i < len ? name[i] : 0;
    if (b >= 'A' && b <= 'Z') b += 32;
    key = key << 8 | (uint64_t)b;
  }
  return key;
}

static const uint8_t* rec_at(const uint8_t* recs, uint32_t i) { return recs + A_HEADER + (size_t)i * REC; }
static uint32_t name_len(const uint8_t* r) { return *(const uint32_t*)(r + R_NAME) & 0xffff; }

static int by_name(const void* x, const void* y, void* arg) {
  const struct sort_ctx* c = arg;
  const struct sort_item* p = x;
  const struct sort_item* q = y;
  if (p->key != q->key) return c->sign * (p->key < q->key ? -1 : 1);
  const uint8_t* a = rec_at(c->recs, p->at);
  const uint8_t* b = rec_at(c->recs, q->at);
  return c->sign * compare_names(c->names + *(const uint32_t*)(a + R_NAME_OFF), name_len(a),
                                 c->names + *(const uint32_t*)(b + R_NAME_OFF), name_len(b));
}

/* A Buffer argument's bytes and length; false (and a TypeError thrown) when it is not one. */
static bool buffer_arg(napi_env env, napi_value v, uint8_t** data, size_t* len, const char* msg) {
  if (bytes_of(env, v, data, len) && ((uintptr_t)*data & 7) == 0) return true;
  napi_throw_type_error(env, NULL, msg);
  return false;
}

/*
 * A frame argument: sortArena's Buffer, long enough for the records its header counts (what
 * fillOffsets and encodeRows read of it); false (and a TypeError thrown) when it is not.
 */
static bool frame_arg(napi_env env, napi_value value, uint8_t** frame, const char* msg) {
  size_t len;
  if (!buffer_arg(env, value, frame, &len, msg)) return false;
  if (len >= A_HEADER && len >= A_HEADER + (size_t)((const uint32_t*)*frame)[A_COUNT] * REC) return true;
  napi_throw_type_error(env, NULL, msg);
  return false;
}

// readArena(fd, recs, names, dents, eagerUpTo, skipHidden, probe, dirLen) -> 1 at the
// directory's end, 0 when `recs` or `names` has no room for one more getdents64 chunk (the
// caller grows it, keeping what it holds, and calls again), or -errno of getdents64.
// Chunks as readPacked reads them, into `dents` (DENTS bytes); each entry is counted in the
// header's A_READ; a hidden name is dropped unstat'ed when `skipHidden`; the others are
// appended as records, their names copied into `names`. A chunk is stat'ed whole
// (STAT_ALL) while fewer than `eagerUpTo` entries were read, else only directories and
// DT_UNKNOWN, as packed-dir.ts asks readPacked.
static napi_value read_arena(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  int32_t fd, dir_len = 0;
  uint32_t eager;
  bool skip_hidden;
  uint8_t *recs, *names, *dents, *probe = NULL;
  size_t recs_len, names_len, dents_len;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 8)
    return type_error(env, "readArena: takes eight arguments");
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok) return type_error(env, "readArena: fd must be a number");
  if (!buffer_arg(env, argv[1], &recs, &recs_len, "readArena: recs must be an 8-byte aligned Buffer") ||
      !buffer_arg(env, argv[2], &names, &names_len, "readArena: names must be an 8-byte aligned Buffer") ||
      !buffer_arg(env, argv[3], &dents, &dents_len, "readArena: dents must be an 8-byte aligned Buffer"))
    return NULL;
  if (recs_len < A_HEADER || dents_len < DENTS) return type_error(env, "readArena: recs or dents too small");
  if (napi_get_value_uint32(env, argv[4], &eager) != napi_ok)
    return type_error(env, "readArena: eagerUpTo must be a number");
  if (napi_get_value_bool(env, argv[5], &skip_hidden) != napi_ok)
    return type_error(env, "readArena: skipHidden must be a boolean");
  if (!probe_args(env, "readArena", argv + 6, &probe, &dir_len)) return NULL;

  uint32_t* hdr = (uint32_t*)recs;
  for (;;) {
    size_t used = A_HEADER + (size_t)hdr[A_COUNT] * REC;
    if (recs_len - used < (size_t)MAX_RECORDS * REC || names_len - hdr[A_NAMES] < DENTS) return number(env, 0);
    struct chunk c = read_chunk(fd, dents);
    if (c.n < 0) return number(env, (int32_t)c.n);
    if (c.n == 0) return number(env, 1);
    const uint32_t mask = hdr[A_READ] < eager ? 0xffffffffu : (1u << 0) | (1u << 4);
    const struct dirent64* d;
    size_t name_len;
    int got;
    while ((got = next_entry(&c, &d, &name_len)) > 0) {
      hdr[A_READ]++;
      if (skip_hidden && d->d_name[0] == '.') continue;
      uint8_t* r = recs + A_HEADER + (size_t)hdr[A_COUNT] * REC;
      hdr[A_COUNT]++;
      hdr[A_ADDED]++;
      memcpy(names + hdr[A_NAMES], d->d_name, name_len);
      *(uint32_t*)(r + R_NAME_OFF) = hdr[A_NAMES];
      hdr[A_NAMES] += (uint32_t)name_len;
      fill_record(r, fd, d, name_len, mask, probe, dir_len);
    }
    if (got < 0) return number(env, got);
    if (probe != NULL) __atomic_store_n(&((int32_t*)probe)[PROBE_LEN], dir_len, __ATOMIC_SEQ_CST);
  }
}

// sortArena(recs, names, limit, descending, whole) -> the arena's records in the walk's name
// order (descending: reversed), the first `limit` of them kept. `whole`: returned as one new
// Buffer (the frame packed-tree.ts walks: the same header, the records in order, then their
// names, R_NAME_OFF counted from the frame's start); else written back into recs and names
// (a capped directory cut back while it is read, so it holds O(limit)) and undefined returned.
static napi_value sort_arena(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  uint8_t *recs, *names;
  size_t recs_len, names_len;
  double limit_d;
  bool desc, whole;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5)
    return type_error(env, "sortArena: takes five arguments");
  if (!buffer_arg(env, argv[0], &recs, &recs_len, "sortArena: recs must be an 8-byte aligned Buffer") ||
      !buffer_arg(env, argv[1], &names, &names_len, "sortArena: names must be an 8-byte aligned Buffer"))
    return NULL;
  if (napi_get_value_double(env, argv[2], &limit_d) != napi_ok || !(limit_d >= 0))
    return type_error(env, "sortArena: limit must be a number from 0");
  if (napi_get_value_bool(env, argv[3], &desc) != napi_ok || napi_get_value_bool(env, argv[4], &whole) != napi_ok)
    return type_error(env, "sortArena: descending and whole must be booleans");
  uint32_t* hdr = (uint32_t*)recs;
  const uint32_t count = hdr[A_COUNT];
  const uint32_t keep = limit_d < count ? (uint32_t)limit_d : count;
  struct sort_item* items = malloc(((size_t)count + 1) * sizeof(struct sort_item));
  if (items == NULL) return type_error(env, "sortArena: out of memory");
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t* r = rec_at(recs, i);
    items[i].key = name_key(names + *(const uint32_t*)(r + R_NAME_OFF), name_len(r));
    items[i].at = i;
  }
  struct sort_ctx ctx = {recs, names, desc ? -1 : 1};
  qsort_r(items, count, sizeof(struct sort_item), by_name, &ctx);
  // The kept records' indices, in order, where the keys were (items is freed below).
  uint32_t* order = (uint32_t*)items;
  for (uint32_t i = 0; i < keep; i++) order[i] = items[i].at;
  size_t name_bytes = 0;
  for (uint32_t i = 0; i < keep; i++) name_bytes += name_len(rec_at(recs, order[i]));
  const size_t rec_bytes = A_HEADER + (size_t)keep * REC;
  uint8_t* out;
  napi_value result = NULL;
  if (whole) {
    void* data;
    if (napi_create_buffer(env, rec_bytes + name_bytes, &data, &result) != napi_ok) {
      free(order);
      return NULL;
    }
    out = data;
  } else {
    out = malloc(rec_bytes + name_bytes + 1);
    if (out == NULL) {
      free(order);
      return type_error(env, "sortArena: out of memory");
    }
  }
  uint32_t at = whole ? (uint32_t)rec_bytes : 0;
  uint8_t* name_out = whole ? out : out + rec_bytes;
  for (uint32_t i = 0; i < keep; i++) {
    const uint8_t* r = rec_at(recs, order[i]);
    uint8_t* w = out + A_HEADER + (size_t)i * REC;
    memcpy(w, r, REC);
    const uint32_t len = name_len(r);
    memcpy(name_out + at, names + *(const uint32_t*)(r + R_NAME_OFF), len);
    *(uint32_t*)(w + R_NAME_OFF) = at;
    at += len;
  }
  free(order);
  uint32_t* out_hdr = (uint32_t*)out;
  out_hdr[A_COUNT] = keep;
  out_hdr[A_NAMES] = whole ? at - (uint32_t)rec_bytes : at;
  out_hdr[A_READ] = hdr[A_READ];
  out_hdr[A_ADDED] = hdr[A_ADDED];
  if (whole) return result;
  memcpy(recs, out, rec_bytes);
  memcpy(names, out + rec_bytes, name_bytes);
  free(out);
  napi_get_undefined(env, &result);
  return result;
}

// fillOffsets(frame, buckets: Int32Array, minutes: Int16Array) -> records left to JavaScript.
// Each stat'ed record of a frame gets the UTC offset of its mtime written into R_ERRNO from
// utc-offset.ts's cache (slot = floor(sec / 900) & 0xffff, as utcOffsetAt reads it); one the
// cache does not hold gets OFFSET_UNKNOWN there, for packed-tree.ts to ask utcOffsetAt.
enum { OFFSET_UNKNOWN = 0x7fffffff, OFFSET_SLOTS = 1 << 16 };
static napi_value fill_offsets(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  uint8_t* frame;
  int32_t* buckets;
  int16_t* minutes;
  size_t n_buckets, n_minutes;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3)
    return type_error(env, "fillOffsets: takes three arguments");
  if (!frame_arg(env, argv[0], &frame, "fillOffsets: frame must be sortArena's Buffer")) return NULL;
  if (!typed_of(env, argv[1], napi_int32_array, (void**)&buckets, &n_buckets) || n_buckets != OFFSET_SLOTS)
    return type_error(env, "fillOffsets: buckets must be an Int32Array of 65,536");
  if (!typed_of(env, argv[2], napi_int16_array, (void**)&minutes, &n_minutes) || n_minutes != OFFSET_SLOTS)
    return type_error(env, "fillOffsets: minutes must be an Int16Array of 65,536");
  const uint32_t count = ((uint32_t*)frame)[A_COUNT];
  int32_t left = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint8_t* r = frame + A_HEADER + (size_t)i * REC;
    if ((*(const uint32_t*)(r + R_NAME) >> 24) != S_STATED) continue;
    // Math.floor(sec / 900) of utc-offset.ts: a whole second, floored toward -infinity.
    const int64_t sec = (int64_t) * (const double*)(r + R_MTIME_SEC);
    const int64_t bucket = sec / 900 - (sec % 900 < 0 ? 1 : 0);
    int32_t off = OFFSET_UNKNOWN;
    if (bucket > INT32_MIN && bucket <= INT32_MAX) {
      const int32_t b = (int32_t)bucket;
      const uint32_t slot = (uint32_t)b & (OFFSET_SLOTS - 1);
      if (buckets[slot] == b) off = minutes[slot];
    }
    if (off == OFFSET_UNKNOWN) left++;
    *(int32_t*)(r + R_ERRNO) = off;
  }
  return number(env, left);
}

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

// The wire numbers encodeRows is given (packed-tree.ts, from @fleetls/proto's tables).
enum {
  W_RESPONSE_ROWS,
  W_ROW_ENTRY,
  W_PATH,
  W_TYPE,
  W_SIZE,
  W_MTIME_SEC,
  W_MTIME_NSEC,
  W_UTC_OFFSET,
  W_MODE,
  W_UID,
  W_GID,
  W_INODE,
  W_NLINK,
  W_DEPTH,
  W_TYPES, // 8 numbers: unknown, file, dir, symlink, fifo, socket, char, block
  W_COUNT = W_TYPES + 8,
};
enum { T_UNKNOWN, T_FILE, T_DIR, T_SYMLINK, T_FIFO, T_SOCKET, T_CHAR, T_BLOCK };

static int type_of_mode(uint32_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return T_FILE;
    case S_IFDIR: return T_DIR;
    case S_IFLNK: return T_SYMLINK;
    case S_IFIFO: return T_FIFO;
    case S_IFSOCK: return T_SOCKET;
    case S_IFCHR: return T_CHAR;
    case S_IFBLK: return T_BLOCK;
    default: return T_UNKNOWN;
  }
}

/* One field: its key and varint value, left out when 0 (proto3), as fast-encoder.ts writes it. */
#define FIELD_LEN(f, v) ((v) == 0 ? 0 : varint_len((uint64_t)(f) << 3) + varint_len(v))
#define PUT_FIELD(p, f, v)                         \
  do {                                             \
    if ((v) != 0) {                                \
      p = put_varint(p, (uint64_t)(f) << 3);       \
      p = put_varint(p, (v));                      \
    }                                              \
  } while (0)

// encodeRows(frame, from, to, dir, depth, out, io, wire) -> the next record to walk.
// Encodes records from..to-1 of a frame (sortArena's) as WalkResponse `rows` into `out` at
// io[0], as fast-encoder.ts encodes an Entry made of them (path "<dir>/<name>", or the name
// when dir is empty; the UTC offset packed-tree.ts wrote into R_ERRNO). Stops before a record
// JavaScript must make an Entry of (not stat'ed, or a symlink: its target is read), when
// io[2] rows were written, when io[0] reached io[1] bytes or the next row would not fit in
// `out`; stops after a directory (the walk descends), and sets io[4] to 1 then. io[3]: rows
// written.
static napi_value encode_rows(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  uint8_t *frame, *prefix, *out;
  size_t prefix_len, out_len;
  uint32_t from, to, depth;
  int32_t *io, *wire;
  size_t io_n, wire_n;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 8)
    return type_error(env, "encodeRows: takes eight arguments");
  if (!frame_arg(env, argv[0], &frame, "encodeRows: frame must be sortArena's Buffer")) return NULL;
  if (napi_get_value_uint32(env, argv[1], &from) != napi_ok || napi_get_value_uint32(env, argv[2], &to) != napi_ok ||
      to > ((uint32_t*)frame)[A_COUNT] || from > to)
    return type_error(env, "encodeRows: from and to must be records of the frame");
  if (!bytes_of(env, argv[3], &prefix, &prefix_len)) return type_error(env, "encodeRows: dir must be a Buffer");
  if (napi_get_value_uint32(env, argv[4], &depth) != napi_ok) return type_error(env, "encodeRows: depth must be a number");
  if (!bytes_of(env, argv[5], &out, &out_len)) return type_error(env, "encodeRows: out must be a Uint8Array");
  if (!typed_of(env, argv[6], napi_int32_array, (void**)&io, &io_n) || io_n < 5)
    return type_error(env, "encodeRows: io must be an Int32Array of 5");
  if (!typed_of(env, argv[7], napi_int32_array, (void**)&wire, &wire_n) || wire_n < W_COUNT)
    return type_error(env, "encodeRows: wire must be an Int32Array of 22");
  if (io[0] < 0 || (size_t)io[0] > out_len) return type_error(env, "encodeRows: io[0] must be inside out");

  uint8_t* p = out + io[0];
  const uint8_t* end = out + out_len;
  const uint8_t* byte_limit = out + (io[1] < 0 ? 0 : (size_t)io[1] < out_len ? (size_t)io[1] : out_len);
  int32_t rows = 0;
  io[4] = 0;
  uint32_t i = from;
  for (; i < to; i++) {
    if (rows >= io[2] || p >= byte_limit) break;
    const uint8_t* r = frame + A_HEADER + (size_t)i * REC;
    const uint32_t word = *(const uint32_t*)(r + R_NAME);
    if ((word >> 24) != S_STATED) break;
    const uint32_t mode = *(const uint32_t*)(r + R_MODE);
    const int type = type_of_mode(mode);
    if (type == T_SYMLINK) break;
    const uint32_t nlen = word & 0xffff;
    const uint8_t* name = frame + *(const uint32_t*)(r + R_NAME_OFF);
    const uint64_t path_len = prefix_len == 0 ? nlen : prefix_len + 1 + nlen;
    const uint64_t size = (uint64_t) * (const double*)(r + R_SIZE);
    const uint64_t mtime = (uint64_t)(int64_t) * (const double*)(r + R_MTIME_SEC);
    const uint64_t nsec = (uint32_t) * (const int32_t*)(r + R_MTIME_NSEC);
    const int32_t off = *(const int32_t*)(r + R_ERRNO);
    const uint64_t zz = off >= 0 ? (uint64_t)off * 2 : (uint64_t)(-(int64_t)off) * 2 - 1;
    const uint64_t uid = *(const uint32_t*)(r + R_UID), gid = *(const uint32_t*)(r + R_GID);
    const uint64_t ino = (uint64_t) * (const double*)(r + R_INO);
    const uint64_t nlink = *(const uint32_t*)(r + R_NLINK);
    const uint64_t wtype = (uint32_t)wire[W_TYPES + type];
    const size_t entry_len = varint_len((uint64_t)wire[W_PATH] << 3 | 2) + varint_len(path_len) + path_len +
                             FIELD_LEN(wire[W_TYPE], wtype) + FIELD_LEN(wire[W_SIZE], size) +
                             FIELD_LEN(wire[W_MTIME_SEC], mtime) + FIELD_LEN(wire[W_MTIME_NSEC], nsec) +
                             FIELD_LEN(wire[W_UTC_OFFSET], zz) + FIELD_LEN(wire[W_MODE], (uint64_t)mode) +
                             FIELD_LEN(wire[W_UID], uid) + FIELD_LEN(wire[W_GID], gid) +
                             FIELD_LEN(wire[W_INODE], ino) + FIELD_LEN(wire[W_NLINK], nlink) +
                             FIELD_LEN(wire[W_DEPTH], (uint64_t)depth);
    const uint64_t row_key = (uint64_t)wire[W_ROW_ENTRY] << 3 | 2;
    const size_t row_len = varint_len(row_key) + varint_len(entry_len) + entry_len;
    const uint64_t rows_key = (uint64_t)wire[W_RESPONSE_ROWS] << 3 | 2;
    const size_t total = varint_len(rows_key) + varint_len(row_len) + row_len;
    if ((size_t)(end - p) < total) break;
    p = put_varint(p, rows_key);
    p = put_varint(p, row_len);
    p = put_varint(p, row_key);
    p = put_varint(p, entry_len);
    p = put_varint(p, (uint64_t)wire[W_PATH] << 3 | 2);
    p = put_varint(p, path_len);
    if (prefix_len > 0) {
      memcpy(p, prefix, prefix_len);
      p += prefix_len;
      *p++ = '/';
    }
    memcpy(p, name, nlen);
    p += nlen;
    PUT_FIELD(p, wire[W_TYPE], wtype);
    PUT_FIELD(p, wire[W_SIZE], size);
    PUT_FIELD(p, wire[W_MTIME_SEC], mtime);
    PUT_FIELD(p, wire[W_MTIME_NSEC], nsec);
    PUT_FIELD(p, wire[W_UTC_OFFSET], zz);
    PUT_FIELD(p, wire[W_MODE], (uint64_t)mode);
    PUT_FIELD(p, wire[W_UID], uid);
    PUT_FIELD(p, wire[W_GID], gid);
    PUT_FIELD(p, wire[W_INODE], ino);
    PUT_FIELD(p, wire[W_NLINK], nlink);
    PUT_FIELD(p, wire[W_DEPTH], (uint64_t)depth);
    rows++;
    if (type == T_DIR) {
      io[4] = 1;
      i++;
      break;
    }
  }
  io[0] = (int32_t)(p - out);
  io[3] = rows;
  return number(env, (int32_t)i);
}

// openDirs(dirFd: number, names: Buffer[], last: boolean) -> a Promise of [fds, next, syscall],
// the lookups run on libuv's pool (one task, where node:fs would make one per name): each name
// is opened in the directory the previous one opened, O_PATH|O_DIRECTORY|O_NOFOLLOW as
// openAt(dirFd, name, true), until one is not a directory. `fds`: the directories opened, in
// order (the caller's to close); none when `last` (the caller needs no descriptor once every
// name is a directory) and every name opened: the task closed them, off the caller's thread
// (O_PATH: no file system is called). `next`, what the name after them is: undefined when every
// name was opened, its target (a Buffer) when it is a symlink (readlinkat in the same
// directory), 0 when it is anything else, or -errno when its open (or readlink: `syscall`
// says which) failed. The caller (confined-path.ts) passes only names its resolution has
// approved, each on the condition that the ones before it are directories: a name is looked
// up only once they opened as directories, never through a symlink.
enum { NEXT_NONE, NEXT_LINK, NEXT_OTHER, NEXT_ERRNO };

struct open_dirs {
  napi_async_work work;
  napi_deferred deferred;
  int32_t from;
  uint32_t count;
  bool last;
  /* The names, each NUL-terminated, one after the other. */
  char* names;
  uint32_t opened;
  int next;
  int err;
  const char* syscall;
  ssize_t target_len;
  char target[PATH_MAX];
  int32_t fds[];
};

static void open_dirs_run(napi_env env, void* data) {
  (void)env;
  struct open_dirs* w = data;
  int dir = w->from;
  const char* name = w->names;
  for (uint32_t i = 0; i < w->count; i++, name += strlen(name) + 1) {
    int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      w->fds[w->opened++] = fd;
      dir = fd;
      continue;
    }
    w->syscall = "open";
    w->err = errno;
    if (w->err != ENOTDIR && w->err != ELOOP) {
      w->next = NEXT_ERRNO;
      return;
    }
    // Not a directory: a symlink (its target read where it is), or anything else.
    w->target_len = readlinkat(dir, name, w->target, sizeof w->target);
    if (w->target_len >= 0 && (size_t)w->target_len < sizeof w->target) {
      w->next = NEXT_LINK;
    } else if (w->target_len < 0 && errno == EINVAL) {
      w->next = NEXT_OTHER;
    } else {
      w->next = NEXT_ERRNO;
      w->syscall = "readlink";
      w->err = w->target_len < 0 ? errno : ENAMETOOLONG;
    }
    return;
  }
  if (!w->last) return;
  for (uint32_t i = 0; i < w->opened; i++) close(w->fds[i]);
  w->opened = 0;
}

static napi_value open_dirs_answer(napi_env env, struct open_dirs* w) {
  napi_value answer, fds, next, syscall;
  if (napi_create_array_with_length(env, 3, &answer) != napi_ok ||
      napi_create_array_with_length(env, w->opened, &fds) != napi_ok)
    return NULL;
  for (uint32_t i = 0; i < w->opened; i++)
    if (napi_set_element(env, fds, i, number(env, w->fds[i])) != napi_ok) return NULL;
  napi_status made = napi_get_undefined(env, &next);
  if (w->next == NEXT_LINK) made = napi_create_buffer_copy(env, (size_t)w->target_len, w->target, NULL, &next);
  if (w->next == NEXT_OTHER) next = number(env, 0);
  if (w->next == NEXT_ERRNO) next = number(env, -w->err);
  if (made != napi_ok || napi_get_undefined(env, &syscall) != napi_ok) return NULL;
  if (w->next == NEXT_ERRNO && napi_create_string_utf8(env, w->syscall, NAPI_AUTO_LENGTH, &syscall) != napi_ok)
    return NULL;
  if (napi_set_element(env, answer, 0, fds) != napi_ok || napi_set_element(env, answer, 1, next) != napi_ok ||
      napi_set_element(env, answer, 2, syscall) != napi_ok)
    return NULL;
  return answer;
}

static void open_dirs_done(napi_env env, napi_status status, void* data) {
  struct open_dirs* w = data;
  napi_value answer = status == napi_ok ? open_dirs_answer(env, w) : NULL;
  if (answer != NULL) {
    napi_resolve_deferred(env, w->deferred, answer);
  } else {
    // Not delivered (the thread's environment is going away, or out of memory): nobody will close them.
    for (uint32_t i = 0; i < w->opened; i++) close(w->fds[i]);
    napi_value msg, err;
    if (napi_create_string_utf8(env, "openDirs: the answer could not be made", NAPI_AUTO_LENGTH, &msg) == napi_ok &&
        napi_create_error(env, NULL, msg, &err) == napi_ok)
      napi_reject_deferred(env, w->deferred, err);
  }
  napi_delete_async_work(env, w->work);
  free(w->names);
  free(w);
}

/* Whether `len` bytes at `data` are one component: not empty, no '/' or NUL, not "." or "..". */
static bool is_component(const void* data, size_t len) {
  const char* c = data;
  if (len == 0 || memchr(c, '/', len) != NULL || memchr(c, 0, len) != NULL) return false;
  return !(c[0] == '.' && (len == 1 || (len == 2 && c[1] == '.')));
}

/* At most this many names a call: a path of PATH_MAX bytes has fewer. */
#define OPEN_DIRS_MAX (PATH_MAX / 2)

static napi_value open_dirs(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  int32_t from;
  bool is_array = false, last;
  uint32_t count = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3)
    return type_error(env, "openDirs: takes three arguments");
  if (napi_get_value_int32(env, argv[0], &from) != napi_ok) return type_error(env, "openDirs: dirFd must be a number");
  if (napi_get_value_bool(env, argv[2], &last) != napi_ok) return type_error(env, "openDirs: last must be a boolean");
  if (napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, argv[1], &count) != napi_ok || count == 0 || count > OPEN_DIRS_MAX)
    return type_error(env, "openDirs: names must be an array of 1 to 2048 Buffers");
  // The names' bytes: each a component, of any length (the kernel's ENAMETOOLONG is the
  // answer to a long one, as it is to node:fs).
  size_t total = 0;
  for (uint32_t i = 0; i < count; i++) {
    napi_value name;
    bool is_buffer = false;
    void* data;
    size_t len;
    if (napi_get_element(env, argv[1], i, &name) != napi_ok || napi_is_buffer(env, name, &is_buffer) != napi_ok ||
        !is_buffer || napi_get_buffer_info(env, name, &data, &len) != napi_ok || !is_component(data, len))
      return type_error(env, "openDirs: each name must be one component (a Buffer: no '/', NUL, '.' or '..')");
    total += len + 1;
  }
  struct open_dirs* w = calloc(1, sizeof *w + count * sizeof w->fds[0]);
  char* names = malloc(total);
  if (w == NULL || names == NULL) {
    free(w);
    free(names);
    napi_throw_error(env, NULL, "openDirs: out of memory");
    return NULL;
  }
  w->from = from;
  w->count = count;
  w->last = last;
  w->names = names;
  for (uint32_t i = 0; i < count; i++) {
    napi_value name;
    void* data;
    size_t len;
    napi_get_element(env, argv[1], i, &name);
    napi_get_buffer_info(env, name, &data, &len);
    memcpy(names, data, len);
    names[len] = 0;
    names += len + 1;
  }
  napi_value promise, resource;
  bool made = napi_create_promise(env, &w->deferred, &promise) == napi_ok &&
              napi_create_string_utf8(env, "fsat.openDirs", NAPI_AUTO_LENGTH, &resource) == napi_ok &&
              napi_create_async_work(env, NULL, resource, open_dirs_run, open_dirs_done, w, &w->work) == napi_ok;
  if (made && napi_queue_async_work(env, w->work) == napi_ok) return promise;
  // A promise made but never settled is only garbage.
  if (made) napi_delete_async_work(env, w->work);
  free(w->names);
  free(w);
  napi_throw_error(env, NULL, "openDirs: the task could not be queued");
  return NULL;
}

// mountsChanged(fd: number) -> 1 when the mount table changed since this descriptor's last
// poll (or its open), 0 when not, or -errno. Never waits.
static napi_value mounts_changed(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok)
    return type_error(env, "mountsChanged: fd must be a number");
  struct pollfd p = {.fd = fd, .events = POLLPRI};
  int n = poll(&p, 1, 0);
  if (n < 0) return number(env, -errno);
  if (p.revents & POLLNVAL) return number(env, -EBADF);
  return number(env, (p.revents & (POLLPRI | POLLERR)) != 0 ? 1 : 0);
}

NAPI_MODULE_INIT() {
  static const struct {
    const char* name;
    napi_callback fn;
  } EXPORTS[] = {
      {"lstatAt", lstat_at},
      {"openAt", open_at},
      {"openDirRead", open_dir_read},
      {"readPacked", read_packed},
      {"readArena", read_arena},
      {"sortArena", sort_arena},
      {"fillOffsets", fill_offsets},
      {"encodeRows", encode_rows},
      {"mountsChanged", mounts_changed},
      {"openDirs", open_dirs},
  };
  for (size_t i = 0; i < sizeof EXPORTS / sizeof EXPORTS[0]; i++) {
    napi_value fn;
    if (napi_create_function(env, EXPORTS[i].name, NAPI_AUTO_LENGTH, EXPORTS[i].fn, NULL, &fn) != napi_ok) return NULL;
    if (napi_set_named_property(env, exports, EXPORTS[i].name, fn) != napi_ok) return NULL;
  }
  return exports;
}
