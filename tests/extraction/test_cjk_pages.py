"""Pages written without spaces between words (Japanese, Chinese, Thai) keep their article text."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from newscrawl.extraction import extract
from newscrawl.extraction.word_tokens import count_text_words, split_words


@dataclass(frozen=True)
class UnspacedPage:
    """The pieces of a generated news page in one language."""

    language: str
    headline: str
    site: str
    paragraphs: tuple[str, ...]
    menu: tuple[str, ...]
    related_heading: str
    related: tuple[str, ...]
    footer_links: tuple[str, ...]
    copyright: str


JAPANESE = UnspacedPage(
    language="ja",
    headline="選挙法の改正見送り、首相が表明",
    site="毎朝ニュース",
    paragraphs=(
        "政府は火曜日、選挙法の改正案を今国会に提出しないと発表しました。与党内では改正を求める"
        "声が強まっていましたが、首相は記者会見で慎重な姿勢を崩しませんでした。",
        "野党各党はこの決定を厳しく批判し、選挙制度の見直しは避けて通れない課題だと主張して"
        "います。専門家の間でも意見は分かれており、議論は今後も続く見通しです。",
        "総務省によりますと、前回の選挙では投票率が過去最低を記録し、若い世代の政治離れが"
        "改めて浮き彫りになりました。地方の選挙区では候補者不足も深刻になっています。",
        "首相は会見の最後に「国民の理解を得ながら、時間をかけて丁寧に議論を進めたい」と述べ、"
        "来年の通常国会での再提出に含みを持たせました。",
    ),
    menu=("ホーム", "政治", "経済", "国際", "社会", "スポーツ", "エンタメ"),
    related_heading="関連記事",
    related=(
        "首相、来月の訪米を正式に発表",
        "与党幹事長が辞任の意向を示す",
        "最低賃金の引き上げ幅が過去最大に",
        "台風10号、週末に九州へ接近の恐れ",
    ),
    footer_links=("会社概要", "利用規約", "プライバシーポリシー", "お問い合わせ"),
    copyright="Copyright © 2026 毎朝ニュース社 無断転載を禁じます",
)
CHINESE = UnspacedPage(
    language="zh",
    headline="政府宣布暂不修改选举法",
    site="晨报网",
    paragraphs=(
        "政府星期二宣布，本届议会会期内将不提交选举法修正案。尽管执政党内部要求修改的呼声"
        "日益高涨，总理在记者会上仍然坚持谨慎立场。",
        "各反对党严厉批评这一决定，认为改革选举制度是无法回避的课题。专家们的意见也存在分歧，"
        "预计相关讨论今后还将持续下去。",
        "据有关部门统计，上次选举的投票率创下历史新低，年轻一代远离政治的现象再次引起关注。"
        "在一些地方选区，候选人不足的问题也日益严重。",
        "总理在记者会最后表示，希望在取得民众理解的基础上，花时间认真推进讨论，并暗示明年"
        "可能重新提交该法案。",
    ),
    menu=("首页", "时政", "财经", "国际", "社会", "体育", "娱乐"),
    related_heading="相关新闻",
    related=(
        "总理下月将正式访问美国",
        "执政党秘书长表示有意辞职",
        "最低工资上调幅度创历史新高",
        "台风预计周末接近南部沿海地区",
    ),
    footer_links=("关于我们", "使用条款", "隐私政策", "联系我们"),
    copyright="版权所有 © 2026 晨报网 未经授权不得转载",
)

THAI = UnspacedPage(
    language="th",
    headline="รัฐบาลไม่แก้กฎหมายเลือกตั้งในสมัยประชุมนี้",
    site="ข่าวเช้า",
    paragraphs=(
        "รัฐบาลประกาศเมื่อวันอังคารว่าจะไม่เสนอร่างแก้ไขกฎหมายการเลือกตั้งต่อรัฐสภาในสมัยประชุมนี้ "
        "แม้จะมีเสียงเรียกร้องจากพรรคร่วมรัฐบาลเพิ่มขึ้นก็ตาม",
        "พรรคฝ่ายค้านวิจารณ์การตัดสินใจครั้งนี้อย่างรุนแรง และยืนยันว่าการปฏิรูประบบการเลือกตั้งเป็นเรื่องที่หลีกเลี่ยงไม่ได้",
        "ตามข้อมูลของกระทรวง อัตราการออกมาใช้สิทธิเลือกตั้งครั้งที่ผ่านมาต่ำที่สุดเป็นประวัติการณ์ "
        "สะท้อนว่าคนรุ่นใหม่ห่างเหินจากการเมืองมากขึ้น",
    ),
    menu=("หน้าแรก", "การเมือง", "เศรษฐกิจ", "ต่างประเทศ", "สังคม", "กีฬา", "บันเทิง"),
    related_heading="ข่าวที่เกี่ยวข้อง",
    related=(
        "นายกรัฐมนตรีเตรียมเดินทางเยือนสหรัฐฯ เดือนหน้า",
        "เลขาธิการพรรครัฐบาลแสดงเจตนาลาออก",
        "ค่าแรงขั้นต่ำปรับขึ้นสูงสุดเป็นประวัติการณ์",
        "พายุลูกใหม่คาดเข้าใกล้ภาคใต้ช่วงสุดสัปดาห์",
    ),
    footer_links=("เกี่ยวกับเรา", "ข้อตกลงการใช้งาน", "นโยบายความเป็นส่วนตัว", "ติดต่อเรา"),
    copyright="สงวนลิขสิทธิ์ © 2026 ข่าวเช้า ห้ามคัดลอกโดยไม่ได้รับอนุญาต",
)
PAGES = [JAPANESE, CHINESE, THAI]


def render_page(page: UnspacedPage) -> str:
    """A news page: menu, headline, article paragraphs, related links and a footer."""
    menu = "".join(
        f'<li><a href="/section/{i}">{name}</a></li>' for i, name in enumerate(page.menu)
    )
    related = "".join(
        f'<li><a href="/news/{i}.html">{headline}</a></li>'
        for i, headline in enumerate(page.related)
    )
    paragraphs = "".join(f"<p>{paragraph}</p>" for paragraph in page.paragraphs)
    links = "".join(
        f'<li><a href="/about/{i}">{name}</a></li>' for i, name in enumerate(page.footer_links)
    )
    return (
        f'<!DOCTYPE html><html lang="{page.language}"><head><meta charset="utf-8">'
        f"<title>{page.headline} | {page.site}</title></head><body>"
        f'<header><div class="logo"><a href="/">{page.site}</a></div>'
        f'<nav><ul class="menu">{menu}</ul></nav></header>'
        f'<main><article><h1>{page.headline}</h1><div class="article-body">{paragraphs}</div>'
        f'</article><aside class="related"><h2>{page.related_heading}</h2>'
        f"<ul>{related}</ul></aside></main>"
        f'<footer><ul class="footer-links">{links}</ul><p class="copyright">{page.copyright}</p>'
        "</footer></body></html>"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.language)
def test_extract_keeps_the_article_paragraphs(page: UnspacedPage) -> None:
    article = extract(render_page(page).encode("utf-8"), url="https://news.example/a/1.html")
    assert article.title == page.headline
    kept = article.text.split("\n\n")
    for paragraph in page.paragraphs:
        assert paragraph in kept


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.language)
def test_extract_drops_the_menu_related_links_and_footer(page: UnspacedPage) -> None:
    article = extract(render_page(page).encode("utf-8"), url="https://news.example/a/1.html")
    # Short menu labels also occur inside the paragraphs: compare whole blocks.
    kept = set(article.text.split("\n\n"))
    assert kept == {page.headline, *page.paragraphs}


def test_split_words_counts_unspaced_scripts_as_character_pairs() -> None:
    assert split_words("選挙法の改正案") == ["選挙", "法の", "改正", "案"]
    assert split_words("iPhone15を発表、한국어 단어") == [
        "iPhone15",
        "を発",
        "表",
        "한국어",
        "단어",
    ]


@pytest.mark.parametrize(
    "text",
    ["Straße in Köln, naïve—co_op 3.5", "Правительство во вторник", "plain ascii, it's fine"],
)
def test_split_words_matches_plain_word_runs_without_unspaced_scripts(text: str) -> None:
    assert split_words(text) == re.findall(r"\w+", text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Hello world, it is me.", 5),
        ("Ça va très bien, merci.", 5),
        ("서울 날씨 좋다", 3),  # Hangul is spaced
        ("東京では桜が咲いています。", 6),  # 12 characters, about two per word
        ("ภาษาไทยไม่มีช่องว่าง", 10),
        ("Tokyo 東京 2026", 3),
    ],
)
def test_article_word_counts_count_unspaced_scripts(text: str, words: int) -> None:
    assert count_text_words(text) == words
