#!/usr/bin/env python3
"""Writes the generated MIME test messages (*.eml) of tests/data/mime/cases/.

Each case is a small message that exercises one way real mail breaks the RFCs. The expected
ENVELOPE/BODYSTRUCTURE/part offsets (*.expected) are written by the golden test itself:
    DARIUS_MIME_REGENERATE=1 build-mime/lib/mime/mime_test --gtest_filter='Golden*'
after the outputs were reviewed (see ../anchors/README.md for the comparison with Dovecot and Cyrus).
Messages use CRLF unless the case is about other line ends.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def crlf(text):
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8", "surrogateescape")


def mp(boundary, parts, preamble="", epilogue="", close=True):
    out = preamble
    for p in parts:
        out += "--" + boundary + "\n" + p + "\n"
    if close:
        out += "--" + boundary + "--\n" + epilogue
    return out


CASES = {}

CASES["simple_text"] = crlf(
    "From: Ann Example <ann@example.org>\nTo: bob@example.net\nSubject: hello\n"
    "Date: Mon, 1 Jan 2024 10:00:00 +0000\nMessage-ID: <1@example.org>\n\nline 1\nline 2\n")

CASES["eightbit_headers"] = crlf(
    "From: J\u00e9r\u00f4me <jerome@example.fr>\nSubject: caf\u00e9 \"quoted\" back\\slash\n"
    "To: \"M\u00fcller, Hans\" <hans@example.de>\n") + b"Cc: Latin-1 \xe9t\xe9 <l1@example.org>\r\n\r\nbody\r\n"

CASES["encoded_words"] = crlf(
    "From: =?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?= <keld@example.dk>\n"
    "To: =?utf-8?B?0J/RgNC40LLQtdGC?= <privet@example.ru>\n"
    "Subject: =?utf-8?q?caf=C3=A9?= =?utf-8?q?_au_lait?= and =?x-unknown?q?raw?=\n\nx\n")

CASES["multipart_no_boundary"] = crlf(
    "Content-Type: multipart/mixed\n\n--x\nContent-Type: text/plain\n\nlost\n--x--\n")

CASES["boundary_never_occurs"] = crlf(
    "Content-Type: multipart/mixed; boundary=absent\n\npreamble only\n--other\n\ntext\n")

CASES["boundary_never_closed"] = crlf(
    "Content-Type: multipart/mixed; boundary=b1\n\n" +
    mp("b1", ["Content-Type: text/plain\n\nfirst", "Content-Type: text/html\n\n<p>second</p>"],
       close=False))

CASES["inner_unclosed_outer_closes"] = crlf(
    "Content-Type: multipart/mixed; boundary=outer\n\n" +
    "--outer\nContent-Type: multipart/alternative; boundary=inner\n\n"
    "--inner\nContent-Type: text/plain\n\nplain\n--inner\nContent-Type: text/html\n\nhtml\n"
    "--outer\nContent-Type: image/gif\nContent-Transfer-Encoding: base64\n\nR0lGODlh\n--outer--\n")

CASES["prefix_boundaries"] = crlf(
    "Content-Type: multipart/mixed; boundary=ab\n\n"
    "--ab\nContent-Type: multipart/mixed; boundary=abc\n\n"
    "--abc\n\ninner one\n--abc\n\ninner two\n--abc--\n"
    "--ab\n\nouter two\n--ab--\n")

CASES["same_boundary_nested"] = crlf(
    "Content-Type: multipart/mixed; boundary=same\n\n"
    "--same\nContent-Type: multipart/mixed; boundary=same\n\n"
    "--same\n\nwhich one?\n--same--\n--same\n\nafter\n--same--\n")

CASES["transport_padding_and_junk"] = crlf(
    "Content-Type: multipart/mixed; boundary=\"pad\"\n\npreamble\n--padding is not a delimiter\n"
    "--pad  \t\nContent-Type: text/plain\n\none\n--pad junk after the boundary\n\ntwo\n"
    "--pad--   trailing junk\nepilogue\n--pad\nnot a part\n")

CASES["message_rfc822_nested"] = crlf(
    "From: outer@example.org\nSubject: outer\nContent-Type: multipart/mixed; boundary=o\n\n" +
    mp("o", ["Content-Type: text/plain\n\nsee attached",
             "Content-Type: message/rfc822\nContent-Description: forwarded\n\n"
             "From: inner@example.org\nTo: x@example.org\nSubject: inner\n"
             "Content-Type: multipart/alternative; boundary=i\n\n" +
             mp("i", ["Content-Type: text/plain\n\nplain", "Content-Type: text/html\n\n<b>h</b>"])]))

CASES["message_rfc822_header_only"] = crlf(
    "Content-Type: multipart/mixed; boundary=h\n\n--h\nContent-Type: message/rfc822\n\n"
    "From: a@example.org\nSubject: no body and no blank line\n--h--\n")

CASES["message_rfc822_empty"] = crlf(
    "Content-Type: multipart/mixed; boundary=e\n\n--e\nContent-Type: message/rfc822\n\n--e--\n")

CASES["message_rfc822_base64"] = crlf(
    "Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: message/rfc822\n"
    "Content-Transfer-Encoding: base64\n\nRnJvbTogYUBiDQoNCmhp\n--x--\n")

CASES["message_rfc822_chain"] = crlf(
    "Subject: level0\nContent-Type: message/rfc822\n\nSubject: level1\nContent-Type: message/rfc822\n\n"
    "Subject: level2\nContent-Type: message/rfc822\n\nSubject: level3\n\ninnermost\n")

CASES["digest_default_type"] = crlf(
    "Content-Type: multipart/digest; boundary=d\n\n" +
    mp("d", ["\nFrom: one@example.org\nSubject: first\n\nbody one",
             "Content-Type: text/plain\n\nexplicit text"]))

CASES["rfc2231_parameters"] = crlf(
    "Content-Type: application/x-stuff;\n title*1*=%2A%2A%2Afun%2A%2A%2A%20;\n"
    " title*0*=us-ascii'en'This%20is%20even%20more%20;\n title*2=\"isn't it!\"\n"
    "Content-Disposition: attachment; filename=\"plain.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt;\n"
    " size=1234; creation-date=\"Wed, 12 Feb 1997 16:29:51 -0500\"\n"
    "Content-Transfer-Encoding: base64\n\nAAAA\n")

CASES["all_content_fields"] = crlf(
    "Content-Type: Text/HTML; Charset=\"UTF-8\" (comment); Format=Flowed\n"
    "Content-ID: <part1@example.org>\nContent-Description: =?utf-8?q?d=C3=A9sc?=\n"
    "Content-Transfer-Encoding: Quoted-Printable\nContent-MD5: Q2hlY2sgSW50ZWdyaXR5IQ==\n"
    "Content-Disposition: INLINE; filename=page.html\nContent-Language: en-GB, fr (comment)\n"
    "Content-Location: http://example.org/page.html\n\n<p>caf=C3=A9</p>\n")

CASES["invalid_content_types"] = crlf(
    "Content-Type: multipart/mixed; boundary=i\n\n" +
    mp("i", ["Content-Type: text\n\nno subtype", "Content-Type: application-x-gzip; name=a.gz\n\nno slash",
             "Content-Type: text/html charset=utf-8\n\nmissing semicolon",
             "Content-Type: ;;;\n\nnothing", "Content-Type: image/png;; name=\"x.png\";\n\n;;"]))

CASES["lenient_parameters"] = crlf(
    "Content-Type: multipart/alternative;\n\tboundary=----=_Part_1_2.3\n\n" +
    mp("----=_Part_1_2.3", ["Content-Type: application/pdf; name=My File.pdf; x=y\n\npdf",
                            "Content-Type: text/plain; charset=us-ascii; charset=utf-8\n\ndup charset"]))

CASES["address_torture"] = crlf(
    "From: \"Doe, John\" <john@example.org>, Jane (the boss) <jane@example.org>\n"
    "Sender: <@relay1.example,@relay2.example:route@example.org>\n"
    "Reply-To: undisclosed-recipients:;\n"
    "To: team: a@example.org, \"b\\\"q\" <b@example.org>;, root, Mary Smith, , <>, @nolocal.example\n"
    "Cc: Big Bug bb@example.org, Mikel@Lindsaar <mikel@example.org>, c@example.org (Comment Name)\n"
    "Bcc: unterminated: x@example.org, \"unterminated quote <q@example.org>\n"
    "Subject: addresses\n\nx\n")

CASES["duplicate_fields"] = crlf(
    "Subject: first\nSubject: second\nFrom: a@example.org\nFrom: b@example.org\n"
    "Message-ID: <one@x>\nMessage-ID: <two@x>\nContent-Type: text/html\nContent-Type: image/gif\n\nx\n")

CASES["header_oddities"] = crlf(
    "From sender@example.org Mon Jan  1 00:00:00 2024\n  continuation of nothing\n"
    "Subject : space before colon\nNoColonLine\nX-Folded: a\n\tb\n c\n"
    "Date: \n\tMon, 1 Jan 2024 00:00:00 +0000 \nFrom:\n To: (comment only)\n\nbody\n")

CASES["empty_message"] = b""

CASES["header_only_no_blank_line"] = b"Subject: only a header\r\nFrom: a@example.org"

CASES["body_only"] = crlf("\nno header at all\n")

CASES["nul_bytes"] = b"Subject: a\x00b\r\nFrom: n\x00ul@example.org\r\n\r\nbody\x00with nul\r\n"

CASES["bare_lf"] = (b"From: lf@example.org\nSubject: bare LF\nContent-Type: multipart/mixed; boundary=l\n\n"
                    b"--l\n\none\n--l\r\n\r\nmixed\r\n--l--\n")

CASES["bare_cr"] = b"Subject: bare CR\rFrom: cr@example.org\r\r--b\rbody\r"

CASES["delimiter_in_part_header"] = crlf(
    "Content-Type: multipart/mixed; boundary=d\n\n--d\nContent-Type: text/plain\nX-Header: cut\n"
    "--d\nContent-Type: message/rfc822\n--d\n\nlast\n--d--\n")

CASES["no_final_newline"] = b"Content-Type: multipart/mixed; boundary=n\r\n\r\n--n\r\n\r\ntext\r\n--n--"

CASES["message_global"] = crlf(
    "Content-Type: multipart/mixed; boundary=g\n\n--g\nContent-Type: message/global\n\n"
    "From: \u00fc@example.org\nSubject: \u00fcnicode\n\nbody\n--g--\n")

CASES["many_parts"] = crlf(
    "Content-Type: multipart/mixed; boundary=m\n\n" +
    mp("m", ["Content-Type: text/plain; name=p%d\n\npart %d" % (i, i) for i in range(60)]))

CASES["long_subject"] = crlf("Subject: " + "x" * 10000 + "\n\nbody\n")

CASES["deep_nesting_over_limit"] = crlf(
    "".join("Content-Type: multipart/mixed; boundary=n%03d\n\n--n%03d\n" % (i, i) for i in range(120)) +
    "Content-Type: text/plain\n\ndeep\n" + "".join("--n%03d--\n" % i for i in reversed(range(120))))

CASES["encodings"] = crlf(
    "Content-Type: multipart/mixed; boundary=c\n\n" +
    mp("c", ["Content-Transfer-Encoding: 8 bit\n\nbad", "Content-Transfer-Encoding: quoted-printable;\n\nqp",
             "Content-Transfer-Encoding: x-uuencode\n\nuu", "Content-Transfer-Encoding:\n\nempty"]))


def main():
    for name, data in CASES.items():
        with open(os.path.join(HERE, name + ".eml"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
