/*
 * st_json.c -- strict JSON (RFC 8259) for safetensors headers: a validator (syntax, UTF-8,
 * escapes, nesting depth) and, on validated text, a cursor that decodes strings in place and
 * reads non-negative integers. Accepts exactly what Python's json module accepts from UTF-8
 * text, less NaN/Infinity, lone surrogates and nesting deeper than ST_MAX_DEPTH (FORMAT.md
 * §11.2), so that the CLI and python/splitzip/safetensors.py take the same headers.
 */
#include <string.h>

#include "safetensors.h"

static int is_ws(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static void skip_ws(jcur *c)
{
	while (c->p < c->end && is_ws(*c->p))
		c->p++;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Four hex digits at p (p + 4 <= end checked by the caller); -1 if not. */
static long hex4(const unsigned char *p)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* Length of the valid UTF-8 sequence at p (2..4), or 0: no overlongs, no surrogates, at most
 * U+10FFFF (what a strict UTF-8 decoder accepts). */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned b = p[0];
	int n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
	if (n == 0 || b > 0xF4 || end - p < n)
		return 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	if ((b == 0xE0 && p[1] < 0xA0) || (b == 0xED && p[1] > 0x9F) ||
	    (b == 0xF0 && p[1] < 0x90) || (b == 0xF4 && p[1] > 0x8F))
		return 0;
	return n;
}

/* An escape after the backslash at c->p[-1]; surrogate pairs must be complete. */
static int check_escape(jcur *c)
{
	if (c->p >= c->end)
		return 0;
	int e = *c->p++;
	if (strchr("\"\\/bfnrt", e) && e)
		return 1;
	if (e != 'u' || c->end - c->p < 4)
		return 0;
	long u = hex4(c->p);
	c->p += 4;
	if (u < 0 || (u >= 0xDC00 && u <= 0xDFFF))
		return 0;
	if (u < 0xD800 || u > 0xDBFF)
		return 1;
	if (c->end - c->p < 6 || c->p[0] != '\\' || c->p[1] != 'u')
		return 0;
	long lo = hex4(c->p + 2);
	c->p += 6;
	return lo >= 0xDC00 && lo <= 0xDFFF;
}

static int check_string(jcur *c)
{
	c->p++; /* the opening quote */
	while (c->p < c->end) {
		unsigned ch = *c->p;
		if (ch == '"') {
			c->p++;
			return 1;
		}
		if (ch < 0x20)
			return 0;
		if (ch == '\\') {
			c->p++;
			if (!check_escape(c))
				return 0;
		} else if (ch < 0x80) {
			c->p++;
		} else {
			int n = utf8_len(c->p, c->end);
			if (!n)
				return 0;
			c->p += n;
		}
	}
	return 0;
}

static int digits(jcur *c)
{
	const unsigned char *s = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	return c->p > s;
}

static int check_number(jcur *c)
{
	if (*c->p == '-')
		c->p++;
	if (c->p < c->end && *c->p == '0')
		c->p++;
	else if (!digits(c))
		return 0;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (!digits(c))
			return 0;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (!digits(c))
			return 0;
	}
	return 1;
}

static int check_word(jcur *c, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
		return 0;
	c->p += n;
	return 1;
}

static int check_value(jcur *c, unsigned depth);

/* The members of an object or the elements of an array, after the opening bracket. */
static int check_container(jcur *c, unsigned depth, int object)
{
	int close = object ? '}' : ']';
	skip_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return 1;
	}
	for (;;) {
		skip_ws(c);
		if (object) {
			if (c->p >= c->end || *c->p != '"' || !check_string(c))
				return 0;
			skip_ws(c);
			if (c->p >= c->end || *c->p++ != ':')
				return 0;
		}
		if (!check_value(c, depth))
			return 0;
		skip_ws(c);
		if (c->p >= c->end)
			return 0;
		int ch = *c->p++;
		if (ch == close)
			return 1;
		if (ch != ',')
			return 0;
	}
}

static int check_value(jcur *c, unsigned depth)
{
	skip_ws(c);
	if (c->p >= c->end)
		return 0;
	int ch = *c->p;
	if (ch == '{' || ch == '[') {
		if (depth + 1 > ST_MAX_DEPTH)
			return 0;
		c->p++;
		return check_container(c, depth + 1, ch == '{');
	}
	if (ch == '"')
		return check_string(c);
	if (ch == '-' || (ch >= '0' && ch <= '9'))
		return check_number(c);
	return check_word(c, "true") || check_word(c, "false") || check_word(c, "null");
}

int json_valid(const unsigned char *s, size_t n)
{
	jcur c = {(unsigned char *)(uintptr_t)s, (unsigned char *)(uintptr_t)s + n};
	if (!check_value(&c, 0))
		return 0;
	skip_ws(&c);
	return c.p == c.end;
}

/* ---- The cursor over validated JSON ---------------------------------------------------------- */

int json_peek(jcur *c)
{
	skip_ws(c);
	return c->p < c->end ? *c->p : -1;
}

int json_eat(jcur *c, int ch)
{
	if (json_peek(c) != ch)
		return 0;
	c->p++;
	return 1;
}

/* UTF-8 of code point u at w; returns the bytes written. */
static size_t put_utf8(unsigned char *w, unsigned long u)
{
	if (u < 0x80) {
		w[0] = (unsigned char)u;
		return 1;
	}
	if (u < 0x800) {
		w[0] = (unsigned char)(0xC0 | (u >> 6));
		w[1] = (unsigned char)(0x80 | (u & 0x3F));
		return 2;
	}
	if (u < 0x10000) {
		w[0] = (unsigned char)(0xE0 | (u >> 12));
		w[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
		w[2] = (unsigned char)(0x80 | (u & 0x3F));
		return 3;
	}
	w[0] = (unsigned char)(0xF0 | (u >> 18));
	w[1] = (unsigned char)(0x80 | ((u >> 12) & 0x3F));
	w[2] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
	w[3] = (unsigned char)(0x80 | (u & 0x3F));
	return 4;
}

/* The code point of a (validated) \u escape at p (after "\u"); advances p past a pair. */
static unsigned long unescape_u(unsigned char **p)
{
	unsigned long u = (unsigned long)hex4(*p);
	*p += 4;
	if (u >= 0xD800 && u <= 0xDBFF) {
		unsigned long lo = (unsigned long)hex4(*p + 2);
		*p += 6;
		u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
	}
	return u;
}

char *json_string(jcur *c, size_t *len)
{
	if (json_peek(c) != '"')
		return NULL;
	unsigned char *start = ++c->p, *r = start, *w = start; /* decoding never lengthens */
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	while (*r != '"') {
		if (*r != '\\') {
			*w++ = *r++;
			continue;
		}
		r++;
		if (*r == 'u') {
			r++;
			w += put_utf8(w, unescape_u(&r));
		} else {
			*w++ = (unsigned char)to[strchr(from, *r) - from];
			r++;
		}
	}
	c->p = r + 1;
	*w = 0; /* at the closing quote's place at the latest */
	*len = (size_t)(w - start);
	return (char *)start;
}

int json_uint(jcur *c, uint64_t *v)
{
	int ch = json_peek(c);
	if (ch < '0' || ch > '9') {
		json_skip(c);
		return 0;
	}
	const unsigned char *s = c->p;
	uint64_t x = 0;
	int ok = 1;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p++ - '0');
		if (x > (UINT64_MAX - d) / 10)
			ok = 0;
		x = x * 10 + d;
	}
	if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E')) {
		c->p = (unsigned char *)(uintptr_t)s;
		json_skip(c);
		return 0;
	}
	*v = x;
	return ok;
}

void json_skip(jcur *c)
{
	int ch = json_peek(c);
	if (ch == '"') {
		size_t n;
		json_string(c, &n);
	} else if (ch == '{' || ch == '[') {
		int object = ch == '{';
		c->p++;
		if (json_eat(c, object ? '}' : ']'))
			return;
		do {
			if (object) {
				json_skip(c);
				json_eat(c, ':');
			}
			json_skip(c);
		} while (json_eat(c, ','));
		json_eat(c, object ? '}' : ']');
	} else {
		while (c->p < c->end && !strchr(",:]} \t\n\r", *c->p))
			c->p++;
	}
}
