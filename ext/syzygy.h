/* The Syzygy endgame tables' file format (ext/syzygy.pxi probes positions with it).
 *
 * A table file holds, for one material (KQvKR: white king and queen against
 * black king and rook, or the colours swapped), the value of every position
 * with that material: win/draw/loss in a .rtbw file (0..4 = loss, blessed
 * loss, draw, cursed win, win, for the side to move), the distance to the
 * next capture or pawn move (DTZ) in a .rtbz file. This file reads them:
 * memory-maps a file, checks and decodes its header, turns a position into
 * the table's index (the pieces' squares in the table's order, folded by the
 * board's symmetries) and decompresses the value stored there.
 *
 * What the format does not answer itself is left to syzygy.pxi: positions
 * with a capture are stored as "don't care" values, so a probe first tries
 * the captures; en passant is not in the tables at all.
 *
 * The format is public (the generator syzygy1/tb; Fathom, Stockfish and
 * python-chess read it); this reader follows the order of python-chess's
 * chess/syzygy.py, the tests' oracle, with its names where they help.
 *
 * Safe on any file: every region a header names is checked against the
 * file's size when the file is opened (a file that fails is refused), and
 * every read the decompression makes is checked against its region, so a
 * truncated or corrupt file is refused or answers "fail", never reads
 * outside its mapping. Read-only once opened: any number of threads may
 * probe at once, without locks.
 */
#ifndef NMM_SYZYGY_H
#define NMM_SYZYGY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define SZ_PIECES 7             /* the most men a Syzygy table holds */
#define SZ_HASH_SLOTS 16384     /* material keys (each table twice): room for every 7-man table */

/* Piece codes inside the files: type 1..6 (P N B R Q K), +8 for black. */
enum { SZ_P = 1, SZ_N, SZ_B, SZ_R, SZ_Q, SZ_K };

/* What a probe of one table gives back. */
enum { SZ_FAIL = -1, SZ_OTHER_SIDE = 0, SZ_OK = 1 };

/* --- the index's fixed maps ---------------------------------------------------------
 * Pawnless tables fold the board by its eight symmetries: the first piece
 * goes to the a1-d1-d4 triangle, and pieces on the a1-h8 diagonal are
 * counted apart (sz_triangle, sz_lower, sz_diag). Two kings that are the only
 * unique pieces share one index of their 462 legal placements (sz_kk). Pawn
 * tables only mirror a-d <-> e-h; the leading pawn (nearest the a/h edge,
 * then the lowest rank) picks one of four sub-tables by its file
 * (sz_flap, sz_ptwist). All of them are computed, as Stockfish does, rather
 * than copied. */

static uint64_t sz_binom_table[65][SZ_PIECES + 1];
static int sz_triangle[64];     /* a1-d1-d4: the six squares below the diagonal 0..5, then a1, b2, c3, d4 */
static int sz_lower[64];        /* squares below the a1-h8 diagonal, 0..27 in square order */
static int sz_diag[64];         /* squares on the diagonal: their file */
static int sz_kk[10][64];       /* two kings, the first in the triangle: 0..461, -1 where illegal */
static int sz_flap[64];         /* a leading pawn's square (a-d, ranks 2..7): file * 6 + rank - 1 */
static int sz_ptwist[64];       /* pawn squares ordered for the leading pawn (47 at a2 .. 0 at e7) */
static uint64_t sz_pawnidx[5][24];  /* [pawns - 1][sz_flap]: where a leading square's indices start */
static uint64_t sz_pfactor[5][4];   /* [pawns - 1][file]: how many there are on that file */
static int sz_ready = 0;

static inline int sz_offdiag(int sq) { return (sq >> 3) - (sq & 7); }
static inline int sz_flipdiag(int sq) { return ((sq >> 3) | (sq << 3)) & 63; }

static inline uint64_t sz_binom(int n, int k)
{
    if (n < 0 || k < 0 || n > 64 || k > SZ_PIECES || k > n)
        return 0;
    return sz_binom_table[n][k];
}

static void sz_init_maps(void)
{
    int n, k, sq, s1, s2, idx, code, f, r, j, t, avail;
    int both[64 * 10][2], n_both = 0;
    if (sz_ready)
        return;
    for (n = 0; n <= 64; n++)
        for (k = 0; k <= SZ_PIECES; k++)
            sz_binom_table[n][k] = k == 0 ? 1 : n == 0 ? 0
                : sz_binom_table[n - 1][k - 1] + (k <= n - 1 ? sz_binom_table[n - 1][k] : 0);
    for (sq = 0; sq < 64; sq++)
        sz_triangle[sq] = sz_lower[sq] = sz_diag[sq] = sz_flap[sq] = sz_ptwist[sq] = -1;
    code = 0;
    for (sq = 0; sq < 64; sq++)
        if (sz_offdiag(sq) < 0)
            sz_lower[sq] = code++;
        else if (sz_offdiag(sq) == 0)
            sz_diag[sq] = sq & 7;
    code = 0;
    for (sq = 0; sq < 32; sq++)             /* ranks 1-4, files a-d, below the diagonal */
        if ((sq & 7) < 4 && sz_offdiag(sq) < 0)
            sz_triangle[sq] = code++;
    for (sq = 0; sq < 32; sq++)             /* then the diagonal: a1, b2, c3, d4 */
        if ((sq & 7) < 4 && sz_offdiag(sq) == 0)
            sz_triangle[sq] = code++;
    /* The kings: the first in the triangle, the second anywhere not next to
     * it; with the first on the diagonal the second not above it, and both
     * on the diagonal counted last. */
    code = 0;
    for (idx = 0; idx < 10; idx++) {
        for (s2 = 0; s2 < 64; s2++)
            sz_kk[idx][s2] = -1;
        for (s1 = 0; s1 < 32; s1++) {
            if (sz_triangle[s1] != idx)
                continue;
            for (s2 = 0; s2 < 64; s2++) {
                int df = (s1 & 7) - (s2 & 7), dr = (s1 >> 3) - (s2 >> 3);
                if (df >= -1 && df <= 1 && dr >= -1 && dr <= 1)
                    continue;                   /* the same or a neighbouring square */
                if (sz_offdiag(s1) == 0 && sz_offdiag(s2) > 0)
                    continue;
                if (sz_offdiag(s1) == 0 && sz_offdiag(s2) == 0) {
                    both[n_both][0] = idx;
                    both[n_both][1] = s2;
                    n_both++;
                    continue;
                }
                sz_kk[idx][s2] = code++;
            }
        }
    }
    for (j = 0; j < n_both; j++)
        sz_kk[both[j][0]][both[j][1]] = code++;
    /* Pawns: files folded onto a-d, ranks 2-7. */
    avail = 47;
    for (f = 0; f < 4; f++)
        for (r = 1; r <= 6; r++) {
            sq = r * 8 + f;
            sz_flap[sq] = sz_flap[sq ^ 7] = f * 6 + r - 1;
            sz_ptwist[sq] = avail--;
            sz_ptwist[sq ^ 7] = avail--;
        }
    for (t = 0; t < 5; t++) {
        j = 0;
        for (f = 0; f < 4; f++) {
            uint64_t s = 0;
            for (r = 1; r <= 6; r++, j++) {
                sz_pawnidx[t][j] = s;
                s += t == 0 ? 1 : sz_binom(sz_ptwist[r * 8 + f], t);
            }
            sz_pfactor[t][f] = s;
        }
    }
    sz_ready = 1;
}

/* --- reading the file ------------------------------------------------------------- */

static inline uint32_t sz_u16(const uint8_t* p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }
static inline uint32_t sz_u32(const uint8_t* p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint32_t sz_u32_be(const uint8_t* p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint64_t sz_u64_be(const uint8_t* p) { return ((uint64_t)sz_u32_be(p) << 32) | sz_u32_be(p + 4); }

/* One compressed sequence of values: a canonical Huffman code over symbols,
 * each symbol standing for a run of values (a pair of shorter symbols, or a
 * value), in blocks of 2^blocksize bytes; an index every 2^idxbits values
 * says which block holds them. */
typedef struct {
    uint8_t flags;              /* the first byte: 0x80 constant; DTZ: 1 side stored, 2 mapped, 4/8 ply, 16 wide */
    int constant;               /* every value is min_len (a table of one value) */
    int blocksize, idxbits, min_len, max_len, num_syms;
    uint64_t num_indices;       /* entries of the index table, 6 bytes each */
    uint32_t num_blocks;        /* entries of the size table (blocks, with some to spare) */
    uint32_t real_num_blocks;   /* blocks of data */
    size_t header;              /* where this header starts in the file */
    size_t indextable, sizetable, data;     /* offsets in the file */
    size_t lowest;              /* per code length, the lowest symbol of that length (u16) */
    size_t sympat;              /* per symbol, 3 bytes: its two halves (12 bits each) or its value */
    uint32_t* symlen;           /* per symbol, how many values it stands for, minus one */
    uint64_t* base;             /* per code length, the lowest code of that length, left-aligned */
} SzPairs;

/* The encoding of one side to move (WDL tables store both) and, in pawn
 * tables, one file of the leading pawn. */
typedef struct {
    uint8_t pieces[SZ_PIECES];  /* piece codes in the index's order */
    uint8_t norm[SZ_PIECES];    /* at the start of each group of like pieces, its size */
    uint64_t factor[SZ_PIECES]; /* what each group's index is multiplied by */
    uint64_t size;              /* positions in this sub-table */
    SzPairs pairs;
    uint32_t map_idx[4];        /* DTZ: where the map of each result starts (in map entries) */
} SzPart;

typedef struct {
    char name[16];
    int dtz;                    /* a .rtbz file */
    int num;                    /* men */
    int has_pawns, symmetric, enc_type, split;
    int pawns[2];               /* the leading pawns (the side with fewer), then the others */
    uint64_t key, key2;         /* material as the file stores it (white is its first colour), mirrored */
    SzPart parts[4][2];         /* [file of the leading pawn][side to move]; pawnless: file 0 */
    size_t map;                 /* DTZ: the maps from stored values to distances */
    const uint8_t* base;        /* the mapping */
    size_t size;
} SzTable;

typedef struct {
    uint64_t key;               /* 0: empty */
    SzTable* wdl;
    SzTable* dtz;
} SzSlot;

typedef struct {
    SzTable** tables;
    int n_tables, cap_tables;
    SzSlot* slots;              /* SZ_HASH_SLOTS, open addressing by material key */
    int max_pieces;             /* the most men of a WDL table present */
    int n_wdl, n_dtz;
} SzTables;

/* A material key: 4 bits per colour and piece type (counts up to 15). */
static inline uint64_t sz_key_add(uint64_t key, int code)
{
    return key + ((uint64_t)1 << (4 * (6 * (code >> 3) + (code & 7) - 1)));
}

static inline uint64_t sz_key_mirror(uint64_t key)
{
    return ((key & 0xFFFFFF) << 24) | (key >> 24);
}

/* Map the file and check its size and magic; 0 with a message if not. */
static int sz_map(SzTable* t, const char* path, char* err, size_t errlen)
{
    static const uint8_t WDL_MAGIC[4] = {0x71, 0xe8, 0x23, 0x5d};
    static const uint8_t DTZ_MAGIC[4] = {0xd7, 0x66, 0x0c, 0xa5};
    struct stat st;
    void* p;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s", path);
        return 0;
    }
    if (fstat(fd, &st) != 0 || st.st_size < 16 || st.st_size % 64 != 16) {
        close(fd);
        snprintf(err, errlen, "%s: not a Syzygy table (its size, %lld bytes, is not 64 n + 16)",
                 path, (long long)st.st_size);
        return 0;
    }
    p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "cannot map %s", path);
        return 0;
    }
    madvise(p, (size_t)st.st_size, MADV_RANDOM);
    t->base = (const uint8_t*)p;
    t->size = (size_t)st.st_size;
    if (memcmp(t->base, t->dtz ? DTZ_MAGIC : WDL_MAGIC, 4) != 0) {
        snprintf(err, errlen, "%s: not a Syzygy %s table (its magic number)", path, t->dtz ? "DTZ" : "WDL");
        return 0;
    }
    return 1;
}

static void sz_free_pairs(SzPairs* d)
{
    free(d->symlen);
    free(d->base);
    d->symlen = NULL;
    d->base = NULL;
}

static void sz_free_table(SzTable* t)
{
    int f, s;
    if (t == NULL)
        return;
    for (f = 0; f < 4; f++)
        for (s = 0; s < 2; s++)
            sz_free_pairs(&t->parts[f][s].pairs);
    if (t->base != NULL)
        munmap((void*)t->base, t->size);
    free(t);
}

/* How many values symbol ``s`` stands for, minus one; its halves first.
 * state: 0 unseen, 1 being counted (met again: a cycle, the file is bad), 2 done. */
static int sz_symlen(const SzTable* t, SzPairs* d, int s, uint8_t* state, int depth)
{
    const uint8_t* w = t->base + d->sympat + 3 * s;
    int s1, s2;
    if (state[s] == 2)
        return 1;
    if (state[s] == 1 || depth > 4096)
        return 0;
    state[s] = 1;
    s2 = (w[2] << 4) | (w[1] >> 4);
    if (s2 == 0x0fff) {
        d->symlen[s] = 0;               /* a value */
    } else {
        s1 = ((w[1] & 0xf) << 8) | w[0];
        if (s1 >= d->num_syms || s2 >= d->num_syms)
            return 0;
        if (!sz_symlen(t, d, s1, state, depth + 1) || !sz_symlen(t, d, s2, state, depth + 1))
            return 0;
        d->symlen[s] = d->symlen[s1] + d->symlen[s2] + 1;
        if (d->symlen[s] > (1u << 30))
            return 0;
    }
    state[s] = 2;
    return 1;
}

/* Read the compression header at ``at`` for a sub-table of ``size``
 * positions; the offset after it in ``*next``. 0 if it does not fit the file. */
static int sz_setup_pairs(SzTable* t, SzPairs* d, size_t at, uint64_t size, size_t* next)
{
    const uint8_t* p;
    int h, i;
    uint8_t* state;
    if (at + 2 > t->size)
        return 0;
    p = t->base + at;
    d->header = at;
    d->flags = p[0];
    if (p[0] & 0x80) {
        d->constant = 1;
        d->min_len = t->dtz ? 0 : p[1];
        *next = at + 2;
        return 1;
    }
    if (at + 12 > t->size)
        return 0;
    d->blocksize = p[1];
    d->idxbits = p[2];
    d->real_num_blocks = sz_u32(p + 4);
    d->num_blocks = d->real_num_blocks + p[3];
    d->max_len = p[8];
    d->min_len = p[9];
    if (d->min_len < 1 || d->max_len < d->min_len || d->max_len > 32 || d->idxbits < 1 || d->idxbits > 40
            || d->blocksize < 3 || d->blocksize > 30)
        return 0;
    h = d->max_len - d->min_len + 1;
    if (at + 12 + 2 * (size_t)h > t->size)
        return 0;
    d->lowest = at + 10;
    d->num_syms = (int)sz_u16(p + 10 + 2 * h);
    if (d->num_syms < 1 || d->num_syms > 4096)
        return 0;
    d->sympat = at + 12 + 2 * (size_t)h;
    *next = d->sympat + 3 * (size_t)d->num_syms + (d->num_syms & 1);
    if (*next > t->size)
        return 0;
    d->num_indices = (size + ((uint64_t)1 << d->idxbits) - 1) >> d->idxbits;
    d->symlen = (uint32_t*)calloc((size_t)d->num_syms, sizeof(uint32_t));
    d->base = (uint64_t*)calloc((size_t)h, sizeof(uint64_t));
    state = (uint8_t*)calloc((size_t)d->num_syms, 1);
    if (d->symlen == NULL || d->base == NULL || state == NULL) {
        free(state);
        return 0;
    }
    for (i = 0; i < d->num_syms; i++)
        if (!sz_symlen(t, d, i, state, 0)) {
            free(state);
            return 0;
        }
    free(state);
    /* The canonical code: longer codes have lower values. base[i] is the
     * lowest code of length min_len + i; from the lowest symbol of each
     * length, from the longest up, then left-aligned in 64 bits so that a
     * code read from the stream compares with it directly. */
    d->base[h - 1] = 0;
    for (i = h - 2; i >= 0; i--)
        d->base[i] = (d->base[i + 1] + sz_u16(t->base + d->lowest + 2 * i)
                      - sz_u16(t->base + d->lowest + 2 * i + 2)) / 2;
    for (i = 0; i < h; i++)
        d->base[i] <<= 64 - (d->min_len + i);
    return 1;
}

/* Place the three tables of a sub-table (called in the file's order). */
static int sz_place(SzTable* t, SzPairs* d, size_t* at, int which)
{
    size_t bytes;
    if (d->constant)
        return 1;
    if (which == 0) {
        d->indextable = *at;
        bytes = 6 * (size_t)d->num_indices;
    } else if (which == 1) {
        d->sizetable = *at;
        bytes = 2 * (size_t)d->num_blocks;
    } else {
        *at = (*at + 63) & ~(size_t)63;
        d->data = *at;
        bytes = (size_t)d->real_num_blocks << d->blocksize;
    }
    if (*at + bytes > t->size || *at + bytes < *at)
        return 0;
    *at += bytes;
    return 1;
}

/* The groups of like pieces (norm) and each group's multiplier (factor);
 * returns the sub-table's size, 0 if the header makes no sense. */
static uint64_t sz_factors_piece(SzTable* t, SzPart* e, int order)
{
    static const uint64_t PIVFAC[3] = {31332, 28056, 462};
    int i, j, k, n;
    uint64_t f = 1;
    memset(e->norm, 0, sizeof e->norm);
    memset(e->factor, 0, sizeof e->factor);
    e->norm[0] = t->enc_type == 0 ? 3 : 2;
    for (i = e->norm[0]; i < t->num; i += e->norm[i])
        for (j = i; j < t->num && e->pieces[j] == e->pieces[i]; j++)
            e->norm[i]++;
    n = 64 - e->norm[0];
    for (i = e->norm[0], k = 0; i < t->num || k == order; k++) {
        if (k > SZ_PIECES)
            return 0;
        if (k == order) {
            e->factor[0] = f;
            f *= PIVFAC[t->enc_type];
        } else {
            e->factor[i] = f;
            f *= sz_binom(n, e->norm[i]);
            n -= e->norm[i];
            i += e->norm[i];
        }
    }
    return e->factor[0] ? f : 0;
}

static uint64_t sz_factors_pawn(SzTable* t, SzPart* e, int order, int order2, int file)
{
    int i, j, k, n;
    uint64_t f = 1;
    memset(e->norm, 0, sizeof e->norm);
    memset(e->factor, 0, sizeof e->factor);
    e->norm[0] = (uint8_t)t->pawns[0];
    if (t->pawns[1])
        e->norm[t->pawns[0]] = (uint8_t)t->pawns[1];
    for (i = t->pawns[0] + t->pawns[1]; i < t->num; i += e->norm[i])
        for (j = i; j < t->num && e->pieces[j] == e->pieces[i]; j++)
            e->norm[i]++;
    i = e->norm[0];
    if (order2 < 0x0f)
        i += e->norm[i];
    n = 64 - i;
    for (k = 0; i < t->num || k == order || k == order2; k++) {
        if (k > SZ_PIECES)
            return 0;
        if (k == order) {
            e->factor[0] = f;
            f *= sz_pfactor[e->norm[0] - 1][file];
        } else if (k == order2) {
            e->factor[e->norm[0]] = f;
            f *= sz_binom(48 - e->norm[0], e->norm[e->norm[0]]);
        } else {
            e->factor[i] = f;
            f *= sz_binom(n, e->norm[i]);
            n -= e->norm[i];
            i += e->norm[i];
        }
    }
    return e->factor[0] ? f : 0;
}

/* The pieces a header lists must be the file's material (in one of its
 * colourings), like pieces next to each other, pawns first in pawn tables. */
static int sz_check_pieces(const SzTable* t, const uint8_t* pieces)
{
    uint64_t key = 0;
    int i, j;
    for (i = 0; i < t->num; i++) {
        int type = pieces[i] & 7;
        if (type < SZ_P || type > SZ_K || (pieces[i] & ~0xF))
            return 0;
        key = sz_key_add(key, pieces[i]);
        for (j = 0; j < i - 1; j++)
            if (pieces[j] == pieces[i] && pieces[i - 1] != pieces[i])
                return 0;
    }
    if (key != t->key && key != t->key2)
        return 0;
    if (t->has_pawns) {
        for (i = 0; i < t->pawns[0]; i++)
            if (pieces[i] != pieces[0] || (pieces[i] & 7) != SZ_P)
                return 0;
        for (i = t->pawns[0]; i < t->pawns[0] + t->pawns[1]; i++)
            if (pieces[i] != (pieces[0] ^ 8))
                return 0;
    }
    return 1;
}

/* The material of a file name: "KQvKR" -> its key (white the first part). */
static int sz_parse_name(SzTable* t, const char* name)
{
    static const char LETTERS[] = "PNBRQK";
    int colour = 0, n = 0, counts[2][7] = {{0}}, kinds = 0, c, k;
    const char* s;
    uint64_t key = 0;
    if (strlen(name) >= sizeof t->name)
        return 0;
    strcpy(t->name, name);
    for (s = name; *s; s++) {
        const char* at;
        if (*s == 'v') {
            if (colour == 1 || s == name)
                return 0;
            colour = 1;
            continue;
        }
        at = strchr(LETTERS, *s);
        if (at == NULL || *s == '\0')
            return 0;
        counts[colour][at - LETTERS + 1]++;
        key = sz_key_add(key, (int)(at - LETTERS + 1) | (colour << 3));
        n++;
    }
    if (colour != 1 || n > SZ_PIECES || counts[0][SZ_K] != 1 || counts[1][SZ_K] != 1 || n < 3)
        return 0;
    t->num = n;
    t->key = key;
    t->key2 = sz_key_mirror(key);
    t->symmetric = t->key == t->key2;
    t->has_pawns = counts[0][SZ_P] + counts[1][SZ_P] > 0;
    if (t->has_pawns) {
        /* The leading colour: the one with fewer pawns, if both have some. */
        int a = counts[0][SZ_P], b = counts[1][SZ_P];
        t->pawns[0] = b;
        t->pawns[1] = a;
        if (a > 0 && (b == 0 || a < b)) {
            t->pawns[0] = a;
            t->pawns[1] = b;
        }
    } else {
        for (c = 0; c < 2; c++)
            for (k = 1; k <= 6; k++)
                kinds += counts[c][k] == 1;
        if (kinds < 2)
            return 0;
        t->enc_type = kinds >= 3 ? 0 : 2;
    }
    return 1;
}

/* Read a WDL file's header. */
static int sz_init_wdl(SzTable* t)
{
    const uint8_t* b = t->base;
    size_t at = 5, next;
    int files, f, s, sides, w;
    if (t->size < 6 + (size_t)t->num + 2)
        return 0;
    t->split = b[4] & 1;
    files = b[4] & 2 ? 4 : 1;
    if (files != (t->has_pawns ? 4 : 1))
        return 0;
    sides = t->split ? 2 : 1;
    if (!t->has_pawns) {
        for (s = 0; s < 2; s++) {
            SzPart* e = &t->parts[0][s];
            for (w = 0; w < t->num; w++)
                e->pieces[w] = s ? b[at + 1 + w] >> 4 : b[at + 1 + w] & 0xf;
            if (!sz_check_pieces(t, e->pieces))
                return 0;
            e->size = sz_factors_piece(t, e, s ? b[at] >> 4 : b[at] & 0xf);
            if (e->size == 0)
                return 0;
        }
        /* The key as stored: python-chess trusts the header over the name. */
        t->key = 0;
        for (w = 0; w < t->num; w++)
            t->key = sz_key_add(t->key, t->parts[0][0].pieces[w]);
        t->key2 = sz_key_mirror(t->key);
        at += t->num + 1;
    } else {
        int j = 1 + (t->pawns[1] > 0);
        for (f = 0; f < 4; f++) {
            if (at + j + t->num > t->size)
                return 0;
            for (s = 0; s < 2; s++) {
                SzPart* e = &t->parts[f][s];
                int order = s ? b[at] >> 4 : b[at] & 0xf;
                int order2 = t->pawns[1] ? (s ? b[at + 1] >> 4 : b[at + 1] & 0xf) : 0x0f;
                for (w = 0; w < t->num; w++)
                    e->pieces[w] = s ? b[at + j + w] >> 4 : b[at + j + w] & 0xf;
                if (!sz_check_pieces(t, e->pieces))
                    return 0;
                e->size = sz_factors_pawn(t, e, order, order2, f);
                if (e->size == 0)
                    return 0;
            }
            at += t->num + j;
        }
    }
    at += at & 1;
    for (f = 0; f < files; f++)
        for (s = 0; s < sides; s++) {
            if (!sz_setup_pairs(t, &t->parts[f][s].pairs, at, t->parts[f][s].size, &next))
                return 0;
            at = next;
        }
    for (w = 0; w < 3; w++)
        for (f = 0; f < files; f++)
            for (s = 0; s < sides; s++)
                if (!sz_place(t, &t->parts[f][s].pairs, &at, w))
                    return 0;
    return 1;
}

/* Read a DTZ file's header (one side to move stored, with maps). */
static int sz_init_dtz(SzTable* t)
{
    const uint8_t* b = t->base;
    size_t at = 5, next;
    int files, f, w, i;
    if (t->size < 6 + (size_t)t->num + 2)
        return 0;
    files = b[4] & 2 ? 4 : 1;
    if (files != (t->has_pawns ? 4 : 1))
        return 0;
    if (!t->has_pawns) {
        SzPart* e = &t->parts[0][0];
        for (w = 0; w < t->num; w++)
            e->pieces[w] = b[at + 1 + w] & 0xf;
        if (!sz_check_pieces(t, e->pieces))
            return 0;
        e->size = sz_factors_piece(t, e, b[at] & 0xf);
        if (e->size == 0)
            return 0;
        t->key = 0;
        for (w = 0; w < t->num; w++)
            t->key = sz_key_add(t->key, e->pieces[w]);
        t->key2 = sz_key_mirror(t->key);
        at += t->num + 1;
    } else {
        int j = 1 + (t->pawns[1] > 0);
        for (f = 0; f < 4; f++) {
            SzPart* e = &t->parts[f][0];
            if (at + j + t->num > t->size)
                return 0;
            for (w = 0; w < t->num; w++)
                e->pieces[w] = b[at + j + w] & 0xf;
            if (!sz_check_pieces(t, e->pieces))
                return 0;
            e->size = sz_factors_pawn(t, e, b[at] & 0xf, t->pawns[1] ? b[at + 1] & 0xf : 0x0f, f);
            if (e->size == 0)
                return 0;
            at += t->num + j;
        }
    }
    at += at & 1;
    for (f = 0; f < files; f++) {
        if (!sz_setup_pairs(t, &t->parts[f][0].pairs, at, t->parts[f][0].size, &next))
            return 0;
        at = next;
    }
    /* The maps: per result (win, loss, cursed win, blessed loss), the
     * distances the stored values stand for, 8 or 16 bits each. */
    t->map = at;
    for (f = 0; f < files; f++) {
        SzPart* e = &t->parts[f][0];
        if (!(e->pairs.flags & 2))
            continue;
        if (e->pairs.flags & 16) {
            at += at & 1;
            for (i = 0; i < 4; i++) {
                if (at + 2 > t->size)
                    return 0;
                e->map_idx[i] = (uint32_t)((at + 2 - t->map) / 2);
                at += 2 + 2 * (size_t)sz_u16(b + at);
            }
        } else {
            for (i = 0; i < 4; i++) {
                if (at + 1 > t->size)
                    return 0;
                e->map_idx[i] = (uint32_t)(at + 1 - t->map);
                at += 1 + (size_t)b[at];
            }
        }
        if (at > t->size)
            return 0;
    }
    at += at & 1;
    for (w = 0; w < 3; w++)
        for (f = 0; f < files; f++)
            if (!sz_place(t, &t->parts[f][0].pairs, &at, w))
                return 0;
    return 1;
}

/* --- the registry --------------------------------------------------------------- */

static SzTables* sz_new(void)
{
    SzTables* tb = (SzTables*)calloc(1, sizeof(SzTables));
    sz_init_maps();
    if (tb == NULL)
        return NULL;
    tb->slots = (SzSlot*)calloc(SZ_HASH_SLOTS, sizeof(SzSlot));
    if (tb->slots == NULL) {
        free(tb);
        return NULL;
    }
    return tb;
}

static void sz_free(SzTables* tb)
{
    int i;
    if (tb == NULL)
        return;
    for (i = 0; i < tb->n_tables; i++)
        sz_free_table(tb->tables[i]);
    free(tb->tables);
    free(tb->slots);
    free(tb);
}

static SzSlot* sz_slot(const SzTables* tb, uint64_t key, int insert)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 50) & (SZ_HASH_SLOTS - 1), tries;
    for (tries = 0; tries < SZ_HASH_SLOTS; tries++, i = (i + 1) & (SZ_HASH_SLOTS - 1)) {
        if (tb->slots[i].key == key)
            return &tb->slots[i];
        if (tb->slots[i].key == 0)
            return insert ? &tb->slots[i] : NULL;
    }
    return NULL;
}

/* Open the table file ``path`` named ``name`` ("KQvKR"), ``dtz`` for a .rtbz:
 * 1 added, 2 already there (the first one found stays), 0 refused with a
 * message in ``err``. Not while any thread probes ``tb``. */
static int sz_add(SzTables* tb, const char* path, const char* name, int dtz, char* err, size_t errlen)
{
    SzTable* t = (SzTable*)calloc(1, sizeof(SzTable));
    SzSlot* slot;
    SzSlot* slot2;
    int ok;
    err[0] = '\0';
    if (t == NULL) {
        snprintf(err, errlen, "no memory for %s", path);
        return 0;
    }
    t->dtz = dtz;
    if (!sz_parse_name(t, name)) {
        snprintf(err, errlen, "%s: not a table name", path);
        free(t);
        return 0;
    }
    slot = sz_slot(tb, t->key, 1);
    if (slot != NULL && slot->key == t->key && (dtz ? slot->dtz : slot->wdl) != NULL) {
        free(t);
        return 2;
    }
    if (!sz_map(t, path, err, errlen)) {
        sz_free_table(t);
        return 0;
    }
    ok = dtz ? sz_init_dtz(t) : sz_init_wdl(t);
    if (!ok) {
        snprintf(err, errlen, "%s: a damaged or truncated Syzygy table (its header does not fit the file)", path);
        sz_free_table(t);
        return 0;
    }
    if (tb->n_tables == tb->cap_tables) {
        int cap = tb->cap_tables ? 2 * tb->cap_tables : 64;
        SzTable** grown = (SzTable**)realloc(tb->tables, cap * sizeof(SzTable*));
        if (grown == NULL) {
            snprintf(err, errlen, "no memory for %s", path);
            sz_free_table(t);
            return 0;
        }
        tb->tables = grown;
        tb->cap_tables = cap;
    }
    /* Both colourings find the table. */
    slot = sz_slot(tb, t->key, 1);
    slot2 = sz_slot(tb, t->key2, 1);
    if (slot == NULL || slot2 == NULL) {
        snprintf(err, errlen, "too many tables");
        sz_free_table(t);
        return 0;
    }
    slot->key = t->key;
    slot2 = sz_slot(tb, t->key2, 1);
    slot2->key = t->key2;
    if (dtz) {
        slot->dtz = slot2->dtz = t;
        tb->n_dtz++;
    } else {
        slot->wdl = slot2->wdl = t;
        tb->n_wdl++;
        if (t->num > tb->max_pieces)
            tb->max_pieces = t->num;
    }
    tb->tables[tb->n_tables++] = t;
    return 1;
}

/* --- probing one table -------------------------------------------------------------- */

/* The value at ``idx`` of a sub-table; -1 where the file does not hold together. */
static int sz_decompress(const SzTable* t, const SzPairs* d, uint64_t idx, int dtz)
{
    const uint8_t* b = t->base;
    const uint8_t* block_start;
    const uint8_t* ptr;
    const uint8_t* end;
    uint64_t mainidx, code;
    int64_t litidx;
    int64_t block;
    int bitcnt = 0, l, sym;
    const uint8_t* w;
    if (d->constant)
        return d->min_len;
    mainidx = idx >> d->idxbits;
    if (mainidx >= d->num_indices)
        return -1;
    litidx = (int64_t)(idx & (((uint64_t)1 << d->idxbits) - 1)) - ((int64_t)1 << (d->idxbits - 1));
    block = sz_u32(b + d->indextable + 6 * mainidx);
    litidx += sz_u16(b + d->indextable + 6 * mainidx + 4);
    if (block >= d->num_blocks)
        return -1;
    if (litidx < 0) {
        while (litidx < 0) {
            if (--block < 0)
                return -1;
            litidx += sz_u16(b + d->sizetable + 2 * block) + 1;
        }
    } else {
        while (litidx > sz_u16(b + d->sizetable + 2 * block)) {
            litidx -= sz_u16(b + d->sizetable + 2 * block) + 1;
            if (++block >= d->num_blocks)
                return -1;
        }
    }
    if (block >= d->real_num_blocks)
        return -1;
    block_start = b + d->data + ((size_t)block << d->blocksize);
    end = b + t->size;
    if (block_start + 8 > end)
        return -1;
    code = sz_u64_be(block_start);
    ptr = block_start + 8;
    for (;;) {
        l = d->min_len;
        while (l < d->max_len && code < d->base[l - d->min_len])
            l++;
        sym = (int)(sz_u16(b + d->lowest + 2 * (l - d->min_len))
                    + ((code - d->base[l - d->min_len]) >> (64 - l)));
        if (sym < 0 || sym >= d->num_syms)
            return -1;
        if (litidx < (int64_t)d->symlen[sym] + 1)
            break;
        litidx -= (int64_t)d->symlen[sym] + 1;
        code <<= l;
        bitcnt += l;
        if (bitcnt >= 32) {
            bitcnt -= 32;
            if (ptr + 4 > end)
                return -1;
            code |= (uint64_t)sz_u32_be(ptr) << bitcnt;
            ptr += 4;
        }
    }
    /* Down the symbol's halves to the value at litidx. */
    while (d->symlen[sym]) {
        int s1;
        w = b + d->sympat + 3 * sym;
        s1 = ((w[1] & 0xf) << 8) | w[0];
        if (litidx < (int64_t)d->symlen[s1] + 1) {
            sym = s1;
        } else {
            litidx -= (int64_t)d->symlen[s1] + 1;
            sym = (w[2] << 4) | (w[1] >> 4);
        }
    }
    w = b + d->sympat + 3 * sym;
    return dtz ? ((w[1] & 0x0f) << 8) | w[0] : w[0];
}

/* Sort the ``n`` squares from ``p`` ascending (groups have at most 7). */
static inline void sz_sort(int* p, int n)
{
    int i, j, x;
    for (i = 1; i < n; i++) {
        x = p[i];
        for (j = i; j > 0 && p[j - 1] > x; j--)
            p[j] = p[j - 1];
        p[j] = x;
    }
}

/* The index of the groups after the first: each group's squares as a
 * combination of the squares the earlier pieces left free. */
static inline int64_t sz_encode_rest(const SzPart* e, int* pos, int i, int n, int pawn_group)
{
    int64_t idx = 0;
    int t, m, l, j;
    while (i < n) {
        uint64_t s = 0;
        t = e->norm[i];
        if (t < 1 || i + t > n)
            return -1;
        sz_sort(pos + i, t);
        for (m = i; m < i + t; m++) {
            for (l = 0, j = 0; l < i; l++)
                j += pos[m] > pos[l];
            s += sz_binom(pos[m] - j - (pawn_group ? 8 : 0), m - i + 1);
        }
        idx += (int64_t)(s * e->factor[i]);
        i += t;
        pawn_group = 0;
    }
    return idx;
}

static int64_t sz_encode_piece(const SzTable* t, const SzPart* e, int* pos)
{
    int n = t->num, i, j, k;
    int64_t idx;
    if (pos[0] & 4)
        for (i = 0; i < n; i++)
            pos[i] ^= 7;
    if (pos[0] & 0x20)
        for (i = 0; i < n; i++)
            pos[i] ^= 0x38;
    for (i = 0; i < n; i++)
        if (sz_offdiag(pos[i]))
            break;
    if (i < n && i < (t->enc_type == 0 ? 3 : 2) && sz_offdiag(pos[i]) > 0)
        for (k = 0; k < n; k++)
            pos[k] = sz_flipdiag(pos[k]);
    if (t->enc_type == 0) {         /* three unique pieces lead */
        i = pos[1] > pos[0];
        j = (pos[2] > pos[0]) + (pos[2] > pos[1]);
        if (sz_offdiag(pos[0]))
            idx = (int64_t)sz_triangle[pos[0]] * 63 * 62 + (pos[1] - i) * 62 + (pos[2] - j);
        else if (sz_offdiag(pos[1]))
            idx = 6 * 63 * 62 + sz_diag[pos[0]] * 28 * 62 + sz_lower[pos[1]] * 62 + pos[2] - j;
        else if (sz_offdiag(pos[2]))
            idx = 6 * 63 * 62 + 4 * 28 * 62 + sz_diag[pos[0]] * 7 * 28 + (sz_diag[pos[1]] - i) * 28
                  + sz_lower[pos[2]];
        else
            idx = 6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + sz_diag[pos[0]] * 7 * 6 + (sz_diag[pos[1]] - i) * 6
                  + (sz_diag[pos[2]] - j);
        i = 3;
    } else {                        /* the two kings lead */
        if (sz_triangle[pos[0]] < 0 || sz_kk[sz_triangle[pos[0]]][pos[1]] < 0)
            return -1;
        idx = sz_kk[sz_triangle[pos[0]]][pos[1]];
        i = 2;
    }
    idx *= (int64_t)e->factor[0];
    {
        int64_t rest = sz_encode_rest(e, pos, i, n, 0);
        return rest < 0 ? -1 : idx + rest;
    }
}

static int64_t sz_encode_pawn(const SzTable* t, const SzPart* e, int* pos)
{
    int n = t->num, i, j, x, tt;
    int64_t idx, rest;
    if (pos[0] & 4)
        for (i = 0; i < n; i++)
            pos[i] ^= 7;
    for (i = 1; i < t->pawns[0]; i++)           /* the other leading pawns, by sz_ptwist, highest first */
        for (j = i + 1; j < t->pawns[0]; j++)
            if (sz_ptwist[pos[i]] < sz_ptwist[pos[j]]) {
                x = pos[i];
                pos[i] = pos[j];
                pos[j] = x;
            }
    tt = t->pawns[0] - 1;
    if (sz_flap[pos[0]] < 0)
        return -1;
    idx = (int64_t)sz_pawnidx[tt][sz_flap[pos[0]]];
    for (i = tt; i > 0; i--)
        idx += (int64_t)sz_binom(sz_ptwist[pos[i]], tt - i + 1);
    idx *= (int64_t)e->factor[0];
    rest = sz_encode_rest(e, pos, t->pawns[0], n, t->pawns[1] > 0);
    return rest < 0 ? -1 : idx + rest;
}

/* Probe one table for the position given by its men (``bb[8 * colour +
 * code]``, codes SZ_P..SZ_K, a1 = bit 0) and side to move (0 white).
 * WDL: *value = 0..4 (loss .. win). DTZ, with ``wdl`` (-2..2) the position's
 * result: *value = the stored distance in plies, before syzygy.pxi's
 * adjustments. Returns SZ_OK, SZ_OTHER_SIDE (a DTZ table that stores only
 * the other side to move) or SZ_FAIL (no table, or it does not hold together). */
static int sz_probe_table(const SzTables* tb, const uint64_t* bb, int stm, int dtz, int wdl, int* value)
{
    static const int WDL_TO_MAP[5] = {1, 3, 0, 2, 0};
    static const uint8_t PA_FLAGS[5] = {8, 0, 0, 0, 4};
    const SzTable* t;
    const SzPart* e;
    SzSlot* slot;
    uint64_t key = 0, b;
    int cmirror, mirror, bside, i, c, f = 0, pos[SZ_PIECES] = {0}, res;
    int64_t idx;
    for (c = 0; c < 2; c++)
        for (i = SZ_P; i <= SZ_K; i++)
            key += (uint64_t)__builtin_popcountll(bb[8 * c + i]) << (4 * (6 * c + i - 1));
    slot = sz_slot(tb, key, 0);
    if (slot == NULL)
        return SZ_FAIL;
    t = dtz ? slot->dtz : slot->wdl;
    if (t == NULL)
        return SZ_FAIL;
    if (!t->symmetric) {
        /* The stored white is our black: swap the colours (and the ranks,
         * which only pawn tables care about). */
        int swap = key != t->key;
        cmirror = swap ? 8 : 0;
        mirror = swap ? 0x38 : 0;
        bside = swap ? stm == 0 : stm != 0;
    } else {
        cmirror = stm ? 8 : 0;
        mirror = stm ? 0x38 : 0;
        bside = 0;
    }
    if (!t->has_pawns) {
        e = &t->parts[0][dtz ? 0 : bside];
        if (dtz && (e->pairs.flags & 1) != bside && !t->symmetric)
            return SZ_OTHER_SIDE;
        if (!dtz && bside && !t->split)
            return SZ_FAIL;
        for (i = 0; i < t->num;) {
            b = bb[8 * ((e->pieces[i] ^ cmirror) >> 3) + (e->pieces[i] & 7)];
            if (b == 0)
                return SZ_FAIL;
            for (; b; b &= b - 1) {
                if (i >= t->num)
                    return SZ_FAIL;
                pos[i++] = __builtin_ctzll(b);
            }
        }
        idx = sz_encode_piece(t, e, pos);
    } else {
        int lead = t->parts[0][0].pieces[0] ^ cmirror;
        i = 0;
        for (b = bb[8 * (lead >> 3) + (lead & 7)]; b; b &= b - 1) {
            if (i >= t->pawns[0])
                return SZ_FAIL;
            pos[i++] = __builtin_ctzll(b) ^ mirror;
        }
        if (i != t->pawns[0])
            return SZ_FAIL;
        for (c = 1; c < t->pawns[0]; c++)       /* the leading pawn: the edge file, then the lowest rank */
            if (sz_flap[pos[0]] > sz_flap[pos[c]]) {
                int x = pos[0];
                pos[0] = pos[c];
                pos[c] = x;
            }
        f = (pos[0] & 7) < 4 ? pos[0] & 7 : 7 - (pos[0] & 7);
        e = &t->parts[f][dtz ? 0 : bside];
        if (dtz && (e->pairs.flags & 1) != bside)
            return SZ_OTHER_SIDE;
        if (!dtz && bside && !t->split)
            return SZ_FAIL;
        while (i < t->num) {
            b = bb[8 * ((e->pieces[i] ^ cmirror) >> 3) + (e->pieces[i] & 7)];
            if (b == 0)
                return SZ_FAIL;
            for (; b; b &= b - 1) {
                if (i >= t->num)
                    return SZ_FAIL;
                pos[i++] = __builtin_ctzll(b) ^ mirror;
            }
        }
        idx = sz_encode_pawn(t, e, pos);
    }
    if (idx < 0 || (uint64_t)idx >= e->size)
        return SZ_FAIL;
    res = sz_decompress(t, &e->pairs, (uint64_t)idx, dtz);
    if (res < 0)
        return SZ_FAIL;
    if (!dtz) {
        if (res > 4)
            return SZ_FAIL;
        *value = res;
        return SZ_OK;
    }
    if (e->pairs.flags & 2) {
        size_t at;
        if (e->pairs.flags & 16) {
            at = t->map + 2 * ((size_t)e->map_idx[WDL_TO_MAP[wdl + 2]] + (size_t)res);
            if (at + 2 > t->size)
                return SZ_FAIL;
            res = (int)sz_u16(t->base + at);
        } else {
            at = t->map + (size_t)e->map_idx[WDL_TO_MAP[wdl + 2]] + (size_t)res;
            if (at + 1 > t->size)
                return SZ_FAIL;
            res = t->base[at];
        }
    }
    /* Stored in moves, not plies, unless the flags say otherwise; always for
     * cursed wins and blessed losses. */
    if (!(e->pairs.flags & PA_FLAGS[wdl + 2]) || (wdl & 1))
        res *= 2;
    *value = res;
    return SZ_OK;
}

#endif
