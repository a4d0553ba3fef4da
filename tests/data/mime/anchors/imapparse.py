import re, sys, urllib.parse
class P:
    def __init__(s, b): s.b=b; s.i=0
    def ws(s):
        while s.i < len(s.b) and s.b[s.i:s.i+1]==b' ': s.i+=1
    def val(s):
        s.ws(); c=s.b[s.i:s.i+1]
        if c==b'(':
            s.i+=1; out=[]
            while True:
                s.ws()
                if s.b[s.i:s.i+1]==b')': s.i+=1; return out
                out.append(s.val())
        if c==b'"':
            s.i+=1; out=bytearray()
            while True:
                ch=s.b[s.i]; s.i+=1
                if ch==0x5c: out.append(s.b[s.i]); s.i+=1; continue
                if ch==0x22: return bytes(out)
                out.append(ch)
        if c==b'{':
            j=s.b.index(b'}',s.i); n=int(s.b[s.i+1:j]); s.i=j+3; v=s.b[s.i:s.i+n]; s.i+=n; return bytes(v)
        m=re.compile(rb'[^ ()]+').match(s.b,s.i); s.i=m.end(); t=m.group(0)
        if t==b'NIL': return None
        if t.isdigit(): return int(t)
        return ('atom',t)
def fetch_items(raw):
    k=raw.find(b'* 1 FETCH (')
    if k<0: return None
    p=P(raw); p.i=k+len(b'* 1 FETCH ')
    lst=p.val(); d={}
    for i in range(0,len(lst),2): d[lst[i][1].decode()]=lst[i+1]
    return d
