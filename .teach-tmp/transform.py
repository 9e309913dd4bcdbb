import re, tomllib, sys
sys.path.insert(0,'.teach-tmp')
from hints import H
course=tomllib.load(open('course.toml','rb'))
def edit_line(e):
    names=', '.join(f'`{f}`' for f in e['functions'])
    word='function' if len(e['functions'])==1 else 'functions'
    return f"**Edit** `{e['file']}`, {word} {names}."
def tiers(id):
    n,a,c=H[id]
    return (f"<details><summary>Hint 1 (a nudge)</summary>\n\n{n}\n\n</details>\n\n"
            f"<details><summary>Hint 2 (the approach)</summary>\n\n{a}\n\n</details>\n\n"
            f"<details><summary>Hint 3 (nearly code)</summary>\n\n{c}\n\n</details>\n")
for ch in course['chapter']:
    folder=ch['exercises'][0]['file'].split('/')[1]
    p=f'book/src/{folder}/exercises.md'; s=open(p).read()
    s=s.replace('<summary>Hint 1: a nudge</summary>','<summary>Hint 1 (a nudge)</summary>')
    s=s.replace('<summary>Hint 2: the approach</summary>','<summary>Hint 2 (the approach)</summary>')
    s=s.replace('<summary>Hint 3: near-code</summary>','<summary>Hint 3 (nearly code)</summary>')
    s=s.replace('<summary>Hint 3: the messages</summary>','<summary>Hint 3 (nearly code)</summary>')
    s=s.replace('<summary>Hint 3: the mean</summary>','<summary>Hint 3 (nearly code)</summary>')
    for e in ch['exercises']:
        head=re.search(r'^## Ex '+re.escape(e['id'])+r':.*\n', s, re.M)
        start=head.end()
        nxt=re.search(r'^## ', s[start:], re.M)
        end=start+(nxt.start() if nxt else len(s[start:]))
        body=s[start:end]
        el=edit_line(e)
        if el not in body:
            b=body.lstrip('\n')
            m=re.match(r'File `[^`]*`(, functions? `[^`]*`(\([^)]*\))?)?[:.]\s*', b)
            if m:
                rest=b[m.end():]
                rest=rest[:1].upper()+rest[1:]
                b=el+'\n'+rest if not rest.startswith('\n') and not rest.startswith('```') else el+'\n\n'+rest.lstrip('\n')
                if rest.startswith('```') or rest.startswith('\n'): pass
                body='\n'+b
            elif re.match(r'Same file:?\s*', b):
                b=re.sub(r'^Same file:?\s*','',b)
                body='\n'+el+'\n\n'+b
            else:
                body='\n'+el+'\n\n'+b
        if e['id'] in H:
            if '*Hints*' in body:
                body=re.sub(r'\*Hints\*:.*?\n\n', lambda m: tiers(e['id'])+'\n', body, count=1, flags=re.S)
            elif '<details><summary>Hints</summary>' in body:
                body=re.sub(r'<details><summary>Hints</summary>.*?</details>\n', lambda m: tiers(e['id']), body, count=1, flags=re.S)
            else:
                print('no hints found', e['id'])
        s=s[:start]+body+s[end:]
    open(p,'w').write(s)
