"""The catalogue of HTML tag sets that the extraction stages test elements against.

Each set is named for what its members mean to the stage that reads it. Sets that look alike
but differ (the walk's block tags and the clean writer's, the walk's skipped tags and the
language sample's) differ on purpose; each comment says why. Tuples are kept where their order
is passed on (to `root.iter` or a compiled scan), so that nothing depends on set order.
"""

from __future__ import annotations

# --- The text walk (`document`) ---------------------------------------------------------------

# Containers whose text is never article text: the walk neither indexes nor keys their text.
# noembed and noframes are fallbacks no current browser shows, and libxml2 reads their inside
# as raw text, so the markup of an ad in there would otherwise surface as words.
SKIPPED_TAGS = frozenset(
    [
        "script",
        "style",
        "noscript",
        "noembed",
        "noframes",
        "template",
        "head",
        "title",
        "meta",
        "link",
        "iframe",
        "object",
        "embed",
        "param",
        "svg",
        "math",
        "select",
        "option",
        "textarea",
        "button",
        "input",
        "canvas",
        "map",
        "video",
        "audio",
    ]
)
# Elements that start a new text block in the walk; everything else is inline and joins its
# block's text. Every HTML block element (p, headings, lists, tables, br): compare
# CLEAN_BLOCK_TAGS, which only matters for tags the clean writer neither keeps nor drops.
# Disjoint from SKIPPED_TAGS: the walk opens a block only for an element it enters.
BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "center",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frame",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "li",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
        "caption",
        "legend",
        "br",
    ]
)
# HTML5 void elements that libxml2 (an HTML 4 parser) does not know are empty: it nests
# whatever follows one of them inside it. It closes img, input, param and the like itself.
UNKNOWN_VOID_TAGS = frozenset(["embed", "source", "track", "wbr", "keygen"])
# Media whose fallback content is invisible, but which an unclosed tag makes swallow the page.
SWALLOWING_MEDIA_TAGS = frozenset(["video", "audio", "object", "canvas"])
# What a head may hold (HTML's metadata content): any other element starts the body, in a
# browser; libxml2 keeps it, and the page after it, in the head (see `swallowed_body`).
HEAD_TAGS = frozenset({"title", "meta", "link", "script", "style", "base", "noscript", "template"})

# --- Shared by the article stages -------------------------------------------------------------

# Headings of every level: a heading is part of the article's outline, not a paragraph.
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Headings below the page's title (h1): the block model's "tag_h" column.
SUBHEADING_TAGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
# Items of ul/ol and dl lists: short lines that belong to the text around them.
LIST_ITEM_TAGS = frozenset({"li", "dd", "dt"})
# Lists whose items are `<li>`: an `<li>` outside one gets a list of its own in clean HTML, and
# a list of dated items is a list of stories, not the article's date line.
ITEM_LIST_TAGS = frozenset({"ul", "ol"})
# Containers too wide to stand for one article: the whole page.
PAGE_TAGS = frozenset({"html", "body"})
# The whole page and its head: never the container of one piece of dynamic noise.
PAGE_AND_HEAD_TAGS = frozenset({"html", "body", "head"})
# Elements that hold the article itself: inside one, a header or footer is the article's own,
# and a byline's co-authors are not looked for past one.
ARTICLE_TAGS = frozenset({"article", "main"})
# Pictures' captions and credits sit between paragraphs but are not the body's text.
FIGURE_TAGS = frozenset({"figure", "figcaption", "picture"})
# Page chrome by its tag: a block inside one of these is likely boilerplate.
BOILERPLATE_TAGS = frozenset({"nav", "footer", "header", "aside", "form", "menu", "select"})
# Table cells and rows: the block model's "tag_td" column.
TABLE_CELL_TAGS = frozenset({"td", "th", "tr"})
# Generic containers with no meaning of their own: the block model's "tag_div" column.
GENERIC_CONTAINER_TAGS = frozenset(
    {"div", "section", "article", "main", "center", "span", "font"}
)
# Text set off from the running text (quotes, code, captions): the block model's "tag_quote".
SET_OFF_TEXT_TAGS = frozenset({"blockquote", "pre", "figcaption", "caption"})
# Tags whose text may belong to a paragraph group (the relevance paper's list).
PARAGRAPH_TAGS = frozenset(
    {
        "p",
        "a",
        "dd",
        "dt",
        "h1",
        "h2",
        "h3",
        "h4",
        "span",
        "b",
        "strong",
        "i",
        "em",
        "font",
        "li",
        "div",
        "td",
        "br",
    }
)
# Elements whose content is code, a template or a no-script fallback: the only ones the
# language sample skips. Narrower than SKIPPED_TAGS: a sample of the body's words needs no more.
SCRIPTING_TAGS = frozenset({"script", "style", "noscript", "template"})

# --- Metadata (`metadata`) --------------------------------------------------------------------

# Elements a byline's class or id may sit on.
BYLINE_TAGS = ("span", "div", "p", "a", "address", "li")
# Elements whose class or id names a date: the visible date line of pages without structured
# dates. The tags are those htmldate reads first.
DATE_LINE_TAGS = ("div", "h2", "h3", "h4", "li", "p", "span", "ul")
# Both kinds of marked element come from one walk (`scan_elements`), in this order.
MARKED_TAGS = tuple(dict.fromkeys(BYLINE_TAGS + DATE_LINE_TAGS))
# The tags metadata reads, gathered in one walk of the tree: each walk of a large page costs
# about as much as everything done with the few elements it finds.
METADATA_TAGS = ("meta", "script", "link", "title", "h1", "time", "figure", "abbr")
# Page chrome by its tag: a date line inside one is the site's clock or another story's date.
CHROME_TAGS = frozenset({"nav", "aside"})
# A page's or an article's header and footer: chrome unless it is the article's own.
EDGE_TAGS = frozenset({"header", "footer"})

# --- Clean HTML (`clean_html`) ----------------------------------------------------------------

# Tags copied as they are (h1 becomes h2: the article's own title lives outside its body).
KEPT_TAGS = frozenset(
    {"p", "h2", "h3", "h4", "h5", "h6", "b", "strong", "i", "em", "a", "ul", "ol", "li",
     "blockquote", "figure", "figcaption", "img", "table", "caption", "thead", "tbody",
     "tfoot", "tr", "td", "th", "br", "pre", "code", "sub", "sup", "q", "cite"}
)
RENAMED_TAGS = {"h1": "h2"}
# Tags dropped with everything inside them.
DROPPED_TAGS = frozenset(
    {"script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "param",
     "noscript", "template", "svg", "math", "form", "input", "button", "select", "option",
     "optgroup", "textarea", "label", "datalist", "output", "head", "title", "meta", "link",
     "base", "audio", "video", "source", "track", "canvas", "map", "area", "dialog",
     "portal", "noembed", "noframes", "xmp", "plaintext", "marquee", "picture"}
)
# Dropped tags whose content a reader never saw: removing them joins nothing.
INVISIBLE_DROPPED_TAGS = frozenset(
    {"script", "style", "template", "head", "title", "meta", "link", "base", "noscript",
     "param", "source", "track", "input", "br"}
)
# Tags the clean writer neither keeps nor drops that start a block: their loose text is wrapped
# in <p> so words do not run on. Tested after KEPT_TAGS and DROPPED_TAGS, so unlike BLOCK_TAGS
# it leaves out what those sets decide (p, headings, lists, tables), and unknown tags outside
# it (legend among them) are unwrapped into the text around them.
CLEAN_BLOCK_TAGS = frozenset(
    {"div", "section", "article", "main", "header", "footer", "aside", "nav", "center",
     "address", "dl", "dt", "dd", "details", "summary", "hgroup", "fieldset", "body", "html",
     "hr", "tr", "menu", "dir"}
)
# Kept tags that may hold bare text; everything else at the top level gets wrapped in <p>.
TEXT_CONTAINER_TAGS = frozenset(
    {"p", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "figcaption", "td", "th",
     "caption", "pre"}
)
# Kept tags that sit inside a line of text rather than start one.
INLINE_KEPT_TAGS = frozenset({"b", "strong", "i", "em", "a", "br", "code", "sub", "sup", "q",
                              "cite", "img"})
# The clean HTML's void elements, written without an end tag as libxml2 (2.14) writes them:
# only those KEPT_TAGS holds, unlike UNKNOWN_VOID_TAGS, which is about parsing the page.
SERIALISED_VOID_TAGS = frozenset({"br", "img"})
# Written without an end tag when empty, as libxml2 writes them.
END_TAG_OPTIONAL_TAGS = frozenset({"li"})
