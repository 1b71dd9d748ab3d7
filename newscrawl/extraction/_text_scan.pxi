# Included by _block_rows.pyx: the per-block text scans, words, keyword hits and character
# counts.
# `count_words` is `word_tokens._count_words`; `count_characters`, `piece_chars` and `int_rows`
# are `block_features._count_characters`, `_piece_chars` and `_int_rows`; `MarkerHints` is
# `block_hints._marker_flags`; `lower_words` is `language._lower_words`; `is_clean_utf8` is
# `decoding.is_clean_utf8`. The scans read each text's code points in place, in a loop specialised to
# the string's storage width, instead of running a regex per block or numpy over a copy of the
# page's text; tests/extraction/test_text_scans.py compares them with the Python ones.


cdef enum:
    OTHER = 0
    WORD = 1  # `\w`, outside the unspaced scripts
    UNSPACED = 2  # `word_tokens._UNSPACED`: read as character pairs
    # Up to this many distinct non-ASCII characters in a character set (see `CharacterSet`).
    WIDE_SLOTS = 16
    # Up to this many keywords are filtered by shape (see `KeywordFilter`); a longer title's
    # tokens are all looked up.
    KEYWORD_SLOTS = 32


cdef struct CharacterSet:
    # ASCII members as a 128-bit mask, the rest listed.
    unsigned long long low
    unsigned long long high
    Py_UCS4 wide[WIDE_SLOTS]
    Py_ssize_t wide_count


cdef inline int _char_class(Py_UCS4 ch) noexcept:
    """OTHER, WORD or UNSPACED, as `word_tokens._WORD` reads the character."""
    if ch < 128:
        if (
            (ch >= 97 and ch <= 122)
            or (ch >= 65 and ch <= 90)
            or (ch >= 48 and ch <= 57)
            or ch == 95
        ):
            return WORD
        return OTHER
    # The ranges of `word_tokens._UNSPACED`, in order (tests check every code point).
    if (
        (0x0E00 <= ch <= 0x0EFF)
        or (0x1000 <= ch <= 0x109F)
        or (0x1780 <= ch <= 0x17FF)
        or (0x3005 <= ch <= 0x3007)
        or (0x3040 <= ch <= 0x30FF)
        or (0x31F0 <= ch <= 0x31FF)
        or (0x3400 <= ch <= 0x4DBF)
        or (0x4E00 <= ch <= 0x9FFF)
        or (0xF900 <= ch <= 0xFAFF)
        or (0xFF66 <= ch <= 0xFF9F)
        or (0x20000 <= ch <= 0x3134F)
    ):
        return UNSPACED
    # What the re module's `\w` tests for str patterns.
    if Py_UNICODE_ISALNUM(ch):
        return WORD
    return OTHER


# A str stores its code points in 1, 2 or 4 bytes each; the loops are compiled for each width.
ctypedef fused code_unit:
    Py_UCS1
    Py_UCS2
    Py_UCS4


cdef struct KeywordFilter:
    # Length, first and last character of each keyword: a token that matches none of them is
    # not a keyword, and only the others are made into strings and looked up.
    Py_ssize_t count
    Py_ssize_t lengths[KEYWORD_SLOTS]
    unsigned long firsts[KEYWORD_SLOTS]
    unsigned long lasts[KEYWORD_SLOTS]


cdef Py_ssize_t _scan(
    const code_unit* codes, Py_ssize_t size, str source, bint ascii, keywords,
    const KeywordFilter* filter, Py_ssize_t* found
) except -1:
    """Words of one text; keyword hits added to `found`."""
    cdef Py_ssize_t index = 0
    cdef Py_ssize_t start
    cdef Py_ssize_t count = 0
    cdef unsigned long first
    cdef int char_class
    while index < size:
        char_class = _char_class(codes[index])
        if char_class == OTHER:
            index += 1
            continue
        start = index
        index += 1
        if char_class == UNSPACED:
            # `[unspaced]{1,2}`: a pair, or a single character at the end of a run.
            if index < size and _char_class(codes[index]) == UNSPACED:
                index += 1
        else:
            while index < size and _char_class(codes[index]) == WORD:
                index += 1
        count += 1
        if _may_be_keyword(codes, start, index, ascii, filter):
            token = PyUnicode_Substring(source, start, index)
            if (token.lower() if ascii else token) in keywords:
                found[0] += 1
    return count


cdef inline bint _may_be_keyword(
    const code_unit* codes, Py_ssize_t start, Py_ssize_t end, bint ascii,
    const KeywordFilter* filter
) noexcept:
    """Whether the token `codes[start:end]` has a keyword's length, first and last character."""
    cdef Py_ssize_t slot
    cdef unsigned long first
    cdef unsigned long last
    if filter.count < 0:
        return True
    first = codes[start]
    last = codes[end - 1]
    if ascii:
        # The source was not lower-cased: fold ASCII capitals here.
        if 65 <= first <= 90:
            first += 32
        if 65 <= last <= 90:
            last += 32
    for slot in range(filter.count):
        if (
            filter.lengths[slot] == end - start
            and filter.firsts[slot] == first
            and filter.lasts[slot] == last
        ):
            return True
    return False


def count_words(list texts, keywords, int64_t[:, ::1] out):
    """`word_tokens._count_words`: into `out`, words of each lower-cased text and keyword hits."""
    cdef Py_ssize_t column = 0
    cdef KeywordFilter filter
    cdef Py_ssize_t size
    cdef Py_ssize_t count
    cdef Py_ssize_t found
    cdef int kind
    cdef bint ascii
    cdef str text
    cdef str source
    cdef str keyword
    if out.shape[0] != 2 or out.shape[1] != len(texts):
        raise ValueError("out must have 2 rows and a column per text")
    filter.count = 0
    for item in keywords:
        if type(item) is not str or filter.count == KEYWORD_SLOTS:
            # Another type, or too many keywords to filter: every token is looked up.
            filter.count = -1
            break
        keyword = item
        size = PyUnicode_GET_LENGTH(keyword)
        if not size:
            continue  # never equal to a token
        filter.lengths[filter.count] = size
        filter.firsts[filter.count] = PyUnicode_READ_CHAR(keyword, 0)
        filter.lasts[filter.count] = PyUnicode_READ_CHAR(keyword, size - 1)
        filter.count += 1
    for text in texts:
        if text is None:
            raise TypeError("count_words takes a list of str")
        # Lower-casing an ASCII text moves no word boundary, so it is scanned as it is and only
        # its candidate keywords are lowered. Elsewhere lowering can (U+0130 becomes two
        # characters): such a text is lowered first, as `_count_words` does.
        ascii = PyUnicode_IS_ASCII(text)
        source = text if ascii else text.lower()
        size = PyUnicode_GET_LENGTH(source)
        kind = PyUnicode_KIND(source)
        found = 0
        if kind == 1:
            count = _scan(
                PyUnicode_1BYTE_DATA(source), size, source, ascii, keywords, &filter, &found
            )
        elif kind == 2:
            count = _scan(
                PyUnicode_2BYTE_DATA(source), size, source, ascii, keywords, &filter, &found
            )
        else:
            count = _scan(
                PyUnicode_4BYTE_DATA(source), size, source, ascii, keywords, &filter, &found
            )
        out[0, column] = count
        out[1, column] = found
        column += 1


cdef int _fill_set(CharacterSet* members, str characters) except -1:
    """A CharacterSet of the distinct characters of a string."""
    cdef Py_UCS4 ch
    cdef unsigned long code
    members.low = 0
    members.high = 0
    members.wide_count = 0
    for ch in characters:
        code = ch
        if code < 64:
            members.low |= 1ULL << code
        elif code < 128:
            members.high |= 1ULL << (code - 64)
        elif not _in_set(members, ch):
            if members.wide_count == WIDE_SLOTS:
                raise ValueError("too many non-ASCII characters in a character set")
            members.wide[members.wide_count] = ch
            members.wide_count += 1
    return 0


cdef inline bint _in_set(const CharacterSet* members, Py_UCS4 ch) noexcept:
    """Whether a character is a member."""
    cdef Py_ssize_t slot
    cdef unsigned long code = ch
    if code < 64:
        return (members.low >> code) & 1
    if code < 128:
        return (members.high >> (code - 64)) & 1
    for slot in range(members.wide_count):
        if members.wide[slot] == ch:
            return True
    return False


cdef void _count_text(
    const code_unit* codes, Py_ssize_t size, Py_ssize_t head,
    const CharacterSet* punctuation, Py_ssize_t* marks, Py_ssize_t* capitals
) noexcept:
    """Punctuation of one text, and capitals among its first `head` characters."""
    cdef Py_ssize_t index
    cdef Py_UCS4 ch
    cdef Py_ssize_t count = 0
    for index in range(size):
        if _in_set(punctuation, codes[index]):
            count += 1
    marks[0] = count
    count = 0
    for index in range(min(size, head)):
        ch = codes[index]
        # str.isupper of one character; ASCII capitals without the Unicode table.
        if (65 <= ch <= 90) if ch < 128 else Py_UNICODE_ISUPPER(ch):
            count += 1
    capitals[0] = count


def count_characters(
    list texts, str punctuation, str sentence_ends, Py_ssize_t head, int64_t[:, ::1] out
):
    """`block_features._count_characters`: sentence end, punctuation, head capitals, head size."""
    cdef CharacterSet punctuation_set
    cdef CharacterSet end_set
    cdef Py_ssize_t column = 0
    cdef Py_ssize_t size
    cdef Py_ssize_t marks_in
    cdef Py_ssize_t capitals_in
    cdef int kind
    cdef str text
    if out.shape[0] != 4 or out.shape[1] != len(texts):
        raise ValueError("out must have 4 rows and a column per text")
    _fill_set(&punctuation_set, punctuation)
    _fill_set(&end_set, sentence_ends)
    for text in texts:
        if text is None:
            raise TypeError("count_characters takes a list of str")
        size = PyUnicode_GET_LENGTH(text)
        kind = PyUnicode_KIND(text)
        out[0, column] = size > 0 and _in_set(
            &end_set, PyUnicode_READ(kind, PyUnicode_DATA(text), size - 1)
        )
        if kind == 1:
            _count_text(
                PyUnicode_1BYTE_DATA(text), size, head, &punctuation_set, &marks_in, &capitals_in
            )
        elif kind == 2:
            _count_text(
                PyUnicode_2BYTE_DATA(text), size, head, &punctuation_set, &marks_in, &capitals_in
            )
        else:
            _count_text(
                PyUnicode_4BYTE_DATA(text), size, head, &punctuation_set, &marks_in, &capitals_in
            )
        out[1, column] = marks_in
        out[2, column] = capitals_in
        out[3, column] = min(size, head)
        column += 1


cdef enum:
    # Capacity of a MarkerHints (see `block_hints.MARKER_WORDS`).
    MARKER_WORDS = 64
    MARKER_WORD_SIZE = 16


cdef class MarkerHints:
    """`block_hints._marker_flags` compiled: flags of the words a class or id value contains."""

    # Built from `block_hints.MARKER_WORDS`: (word, flag, must start a word, must end a word).

    # Words in C: ASCII letters, chained by first character so that each position of a marker
    # is only compared with the words starting with its character.
    cdef Py_UCS4 words[MARKER_WORDS][MARKER_WORD_SIZE]
    cdef Py_ssize_t sizes[MARKER_WORDS]
    cdef long flags[MARKER_WORDS]
    cdef bint starts[MARKER_WORDS]
    cdef bint ends[MARKER_WORDS]
    cdef int next_word[MARKER_WORDS]
    cdef int first_word[128]
    cdef long all_flags

    def __init__(self, marker_words):
        cdef int index
        cdef Py_ssize_t size
        cdef Py_ssize_t position
        cdef str word
        for index in range(128):
            self.first_word[index] = -1
        self.all_flags = 0
        entries = list(marker_words)
        if len(entries) > MARKER_WORDS:
            raise ValueError("too many marker words")
        # Chained in reverse so that each chain keeps the given order.
        for index in reversed(range(len(entries))):
            word, flag, starts, ends = entries[index]
            size = len(word)
            if not 0 < size <= MARKER_WORD_SIZE or not word.isascii() or word != word.lower():
                raise ValueError(f"marker words are short lower-case ASCII: {word!r}")
            for position in range(size):
                self.words[index][position] = word[position]
            self.sizes[index] = size
            self.flags[index] = flag
            self.starts[index] = starts
            self.ends[index] = ends
            self.next_word[index] = self.first_word[ord(word[0])]
            self.first_word[ord(word[0])] = index
            self.all_flags |= flag

    def __call__(self, str marker not None):
        """The OR of the flags of the marker words in the lower-cased marker."""
        cdef str lowered = marker.lower()
        cdef Py_ssize_t size = PyUnicode_GET_LENGTH(lowered)
        cdef int kind = PyUnicode_KIND(lowered)
        cdef void* data = PyUnicode_DATA(lowered)
        cdef Py_ssize_t position
        cdef Py_ssize_t offset
        cdef Py_ssize_t word_size
        cdef Py_UCS4 ch
        cdef int index
        cdef long found = 0
        for position in range(size):
            ch = PyUnicode_READ(kind, data, position)
            if ch >= 128:
                continue
            index = self.first_word[ch]
            while index >= 0:
                word_size = self.sizes[index]
                if (
                    not self.flags[index] & ~found
                    or position + word_size > size
                    or (
                        self.starts[index]
                        and position > 0
                        and _is_word(PyUnicode_READ(kind, data, position - 1))
                    )
                    or (
                        self.ends[index]
                        and position + word_size < size
                        and _is_word(PyUnicode_READ(kind, data, position + word_size))
                    )
                ):
                    # Adds nothing new, does not fit, or is part of a longer word.
                    index = self.next_word[index]
                    continue
                offset = 1
                while (
                    offset < word_size
                    and PyUnicode_READ(kind, data, position + offset) == self.words[index][offset]
                ):
                    offset += 1
                if offset == word_size:
                    found |= self.flags[index]
                    if found == self.all_flags:
                        return found
                index = self.next_word[index]
        return found


cdef inline bint _is_word(Py_UCS4 ch) noexcept:
    """Whether the re module's `\\w` matches the character (str patterns)."""
    return ch == 95 or Py_UNICODE_ISALNUM(ch)


def piece_chars(list pieces, double[:, ::1] out):
    """`block_features._piece_chars`: into `out`, stripped lengths of the pieces, and in links."""
    cdef Py_ssize_t column = 0
    cdef Py_ssize_t size
    cdef Py_ssize_t start
    cdef Py_ssize_t end
    cdef int kind
    cdef void* data
    cdef str text
    if out.shape[0] != 2 or out.shape[1] != len(pieces):
        raise ValueError("out must have 2 rows and a column per piece")
    for piece in pieces:
        text = piece.text
        if text is None:
            raise TypeError("a piece's text is a str")
        size = PyUnicode_GET_LENGTH(text)
        kind = PyUnicode_KIND(text)
        data = PyUnicode_DATA(text)
        # The length of `text.strip()`: str.strip drops what Py_UNICODE_ISSPACE matches.
        start = 0
        while start < size and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, start)):
            start += 1
        end = size
        while end > start and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, end - 1)):
            end -= 1
        out[0, column] = end - start
        out[1, column] = end - start if piece.in_link else 0
        column += 1


def int_rows(list rows, int64_t[:, ::1] out):
    """`block_features._int_rows`: each list of ints into the start of its row of `out`."""
    cdef Py_ssize_t row
    cdef Py_ssize_t column
    cdef list values
    if len(rows) > out.shape[0]:
        raise ValueError("more lists than rows")
    for row in range(len(rows)):
        values = rows[row]
        if len(values) > out.shape[1]:
            raise ValueError("a list is longer than its row")
        # numpy converts a list of ints at some 20 ns an item; this loop is ten times faster.
        for column in range(len(values)):
            out[row, column] = values[column]


cdef inline bint _is_word_character(Py_UCS4 ch) noexcept:
    """What the re module's `\\w` matches in a str pattern: alphanumeric, or `_`."""
    if ch < 128:
        return (
            (ch >= 97 and ch <= 122)
            or (ch >= 65 and ch <= 90)
            or (ch >= 48 and ch <= 57)
            or ch == 95
        )
    return Py_UNICODE_ISALNUM(ch)


cdef list _word_runs(const code_unit* codes, Py_ssize_t size, str source):
    """Every maximal run of word characters of `source`, as `re.findall(r"\\w+")` finds them."""
    cdef list words = []
    cdef Py_ssize_t index = 0
    cdef Py_ssize_t start
    while index < size:
        if not _is_word_character(codes[index]):
            index += 1
            continue
        start = index
        index += 1
        while index < size and _is_word_character(codes[index]):
            index += 1
        words.append(PyUnicode_Substring(source, start, index))
    return words


def lower_words(str text not None):
    """`language._lower_words`: `re.findall(r"\\w+", text.lower())`, the runs found in C."""
    cdef str lowered = text.lower()
    cdef Py_ssize_t size = PyUnicode_GET_LENGTH(lowered)
    cdef int kind = PyUnicode_KIND(lowered)
    if kind == 1:
        return _word_runs(PyUnicode_1BYTE_DATA(lowered), size, lowered)
    if kind == 2:
        return _word_runs(PyUnicode_2BYTE_DATA(lowered), size, lowered)
    return _word_runs(PyUnicode_4BYTE_DATA(lowered), size, lowered)


cdef inline bint _continues(const unsigned char* data, Py_ssize_t at, Py_ssize_t size) noexcept:
    """Whether `data[at]` exists and is a UTF-8 continuation byte (0x80 to 0xBF)."""
    return at < size and (data[at] & 0xC0) == 0x80


def is_clean_utf8(bytes data not None, Py_ssize_t start=0):
    """`decoding.is_clean_utf8`: whether `data[start:]` decodes as strict UTF-8 (no overlong
    forms, surrogates nor code points past U+10FFFF) to a text without U+FFFD, the replacement
    character, checked without making the text."""
    cdef const unsigned char* bytes_in = data
    cdef Py_ssize_t size = len(data)
    cdef Py_ssize_t index = start
    cdef unsigned char lead
    cdef unsigned char second
    cdef uint64_t word
    if not 0 <= start <= size:
        raise IndexError("start out of range")
    while index < size:
        lead = bytes_in[index]
        if lead < 0x80:
            index += 1
            # Most of a page is ASCII: eight bytes at a time while none has its high bit set.
            while index + 8 <= size:
                memcpy(&word, bytes_in + index, 8)
                if word & 0x8080808080808080ULL:
                    break
                index += 8
            continue
        if 0xC2 <= lead <= 0xDF:
            if not _continues(bytes_in, index + 1, size):
                return False
            index += 2
            continue
        if index + 1 >= size:
            return False
        second = bytes_in[index + 1]
        if 0xE0 <= lead <= 0xEF:
            # E0 needs A0-BF (no overlong form), ED needs 80-9F (no surrogate).
            if (
                (lead == 0xE0 and not 0xA0 <= second <= 0xBF)
                or (lead == 0xED and not 0x80 <= second <= 0x9F)
                or (lead != 0xE0 and lead != 0xED and (second & 0xC0) != 0x80)
                or not _continues(bytes_in, index + 2, size)
                or (lead == 0xEF and second == 0xBF and bytes_in[index + 2] == 0xBD)  # U+FFFD
            ):
                return False
            index += 3
            continue
        if 0xF0 <= lead <= 0xF4:
            # F0 needs 90-BF (no overlong form), F4 needs 80-8F (nothing past U+10FFFF).
            if (
                (lead == 0xF0 and not 0x90 <= second <= 0xBF)
                or (lead == 0xF4 and not 0x80 <= second <= 0x8F)
                or (lead != 0xF0 and lead != 0xF4 and (second & 0xC0) != 0x80)
                or not _continues(bytes_in, index + 2, size)
                or not _continues(bytes_in, index + 3, size)
            ):
                return False
            index += 4
            continue
        return False  # a stray continuation byte, C0, C1 or F5-FF
    return True
