#!/usr/bin/env python3
"""Writes data/fixtures/hard_molecules.csv: the molecules that test how RDKit is hosted — long
peptides, macrocycles, organometallics and dative bonds, charged species, stereo, isotopes,
aromaticity edge cases and very large molecules (10,000 heavy atoms; a SMILES of 99,999 characters).
Deterministic (seeded): run it from the repository's root and the file is the same, byte for byte;
then update data/manifest.json's entry (bytes, sha256)."""
import csv, random
random.seed(56)
res = {
 'G':'NCC(=O)','A':'N[C@@H](C)C(=O)','S':'N[C@@H](CO)C(=O)','C':'N[C@@H](CS)C(=O)','F':'N[C@@H](Cc1ccccc1)C(=O)',
 'Y':'N[C@@H](Cc1ccc(O)cc1)C(=O)','W':'N[C@@H](Cc1c[nH]c2ccccc12)C(=O)','K':'N[C@@H](CCCCN)C(=O)','R':'N[C@@H](CCCNC(=N)N)C(=O)',
 'H':'N[C@@H](Cc1c[nH]cn1)C(=O)','D':'N[C@@H](CC(=O)O)C(=O)','E':'N[C@@H](CCC(=O)O)C(=O)','P':'N1[C@@H](CCC1)C(=O)',
 'M':'N[C@@H](CCSC)C(=O)','V':'N[C@@H](C(C)C)C(=O)','L':'N[C@@H](CC(C)C)C(=O)','I':'N[C@@H]([C@@H](C)CC)C(=O)',
 'T':'N[C@@H]([C@@H](C)O)C(=O)','N':'N[C@@H](CC(N)=O)C(=O)','Q':'N[C@@H](CCC(N)=O)C(=O)'}
def peptide(n):
    seq=''.join(random.choice(list(res)) for _ in range(n))
    return ''.join(res[a] for a in seq)+'O'
def cyclic(n):
    body=[res[random.choice('AGSLVFKE')] for _ in range(n)]
    s=body[0].replace('N','N9',1) if not body[0].startswith('N1') else body[0]
    smi=s+''.join(body[1:-1])+body[-1][:-len('C(=O)')]+'C9=O'
    return smi
rows=[]
def add(cat, smi, name=None): rows.append((f"hard_{len(rows)+1:03d}_{name or cat}", smi, cat))
for n in (10, 50, 200): add('peptide', peptide(n), f'peptide{n}')
add('peptide', peptide(1200), 'peptide1200')          # ~10,000 heavy atoms
for n in (8, 12, 30): add('macrocycle', cyclic(n), f'cyclopeptide{n}')
for name, smi in [
 ('cyclosporin', 'CC[C@H]1C(=O)N(CC(=O)N([C@H](C(=O)N[C@H](C(=O)N([C@H](C(=O)N[C@H](C(=O)N[C@@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N1)[C@@H]([C@H](C)C/C=C/C)O)C)C(C)C)C)CC(C)C)C)CC(C)C)C)C)C)CC(C)C)C)C(C)C)CC(C)C)C)C'),
 ('cyclodextrin_beta', 'OC[C@H]1O[C@@H]2O[C@H]3[C@H](O)[C@@H](O)[C@@H](O[C@@H]3CO)O[C@H]3[C@H](O)[C@@H](O)[C@@H](O[C@@H]3CO)O[C@H]3[C@H](O)[C@@H](O)[C@@H](O[C@@H]3CO)O[C@H]3[C@H](O)[C@@H](O)[C@@H](O[C@@H]3CO)O[C@H]3[C@H](O)[C@@H](O)[C@@H](O[C@@H]3CO)O[C@H]3[C@H](O)[C@@H](O)[C@@H](O[C@@H]3CO)O[C@H]1[C@H](O)[C@H]2O'),
 ('crown18', 'C1COCCOCCOCCOCCOCCO1'),
 ('cyclooctadecane', 'C1CCCCCCCCCCCCCCCCC1'),
 ('porphyrin', 'c1cc2cc3ccc(cc4ccc(cc5ccc(cc1n2)[nH]5)n4)[nH]3'),
]: add('macrocycle', smi, name)
for name, smi in [
 ('iron_complex', 'C1C[N+]23CCC[N+]4(C1)CC[S-]1[Fe+2]24([SH+]CC3)[S-]2CC[N+]34CCC[N+]5(CCC3)CC[SH+][Fe+2]1254'),
 ('ferrocene', '[cH-]1cccc1.[cH-]1cccc1.[Fe+2]'),
 ('cisplatin_dative', 'N->[Pt](<-N)(Cl)Cl'),
 ('cisplatin_charged', '[NH3+][Pt-2]([NH3+])(Cl)Cl'),
 ('iron_pentacarbonyl', 'O=C=[Fe](=C=O)(=C=O)(=C=O)=C=O'),
 ('grignard', 'C[Mg]Br'),
 ('zeise', '[Cl-].[Cl-].[Cl-].[K+].C=C->[Pt+2]'),
 ('chromium_dative', 'c1ccccc1->[Cr](<-[C-]#[O+])(<-[C-]#[O+])<-[C-]#[O+]'),
 ('borane_amine', 'N->B'),
 ('ruthenium_bipy', 'c1ccc(-c2ccccn2)nc1.c1ccc(-c2ccccn2)nc1.c1ccc(-c2ccccn2)nc1.[Ru+2]'),
]: add('organometallic', smi, name)
for name, smi in [
 ('ammonium_chloride', '[NH4+].[Cl-]'), ('tetramethylammonium', 'C[N+](C)(C)C'), ('nitrobenzene', '[O-][N+](=O)c1ccccc1'),
 ('zwitterion_glycine', '[NH3+]CC([O-])=O'), ('sulfonium', 'C[S+](C)C'), ('sodium_acetate', '[Na+].[O-]C(=O)C'),
 ('phosphate', 'OP(=O)([O-])[O-]'), ('carbanion', '[CH3-]'), ('dication', 'c1cc[n+](C)cc1.c1cc[n+](C)cc1'),
]: add('charged', smi, name)
for name, smi in [
 ('diol', 'C[C@@H](O)[C@H](O)C'), ('trans', 'F/C=C/F'), ('cis', 'F/C=C\\F'),
 ('steroid', 'C[C@]12CC[C@H]3[C@@H](CC=C4C[C@@H](O)CC[C@]34C)[C@@H]1CC[C@@H]2O'),
 ('allene', 'CC=C=CC'), ('tetrahedral_si', 'C[Si@](F)(Cl)Br'), ('sulfoxide', 'C[S@@](=O)c1ccccc1'),
 ('octahedral', 'F[Co@OH1](Cl)(Br)(I)(N)O'), ('squareplanar', 'F[Pt@SP1](Cl)(Br)I'),
]: add('stereo', smi, name)
for name, smi in [
 ('c13_methane', '[13CH4]'), ('perdeuteromethane', '[2H]C([2H])([2H])[2H]'), ('f18_benzene', '[18F]c1ccccc1'),
 ('u235', '[235U]'), ('labelled_glucose', 'OC[C@H]1O[C@H](O)[C@H](O)[C@@H](O)[C@@H]1[18OH]'),
]: add('isotope', smi, name)
for name, smi in [
 ('azulene', 'c1ccc2cccc2cc1'), ('pyrrole', 'c1cc[nH]c1'), ('thiophene', 'c1ccsc1'), ('tropylium', '[cH+]1cccccc1'),
 ('indole', 'c1ccc2[nH]ccc2c1'), ('furan', 'o1cccc1'), ('pyridine_oxide', '[O-][n+]1ccccc1'), ('kekule_benzene', 'C1=CC=CC=C1'),
 ('five_carbon_aromatic', 'c1cccc1'), ('cyclopentadienyl', '[cH-]1cccc1'), ('borazine', 'B1NBNBN1'), ('pyridone', 'O=c1cccc[nH]1'),
 ('fullerene', 'c12c3c4c5c1c1c6c7c2c2c8c3c3c9c4c4c%10c5c5c1c1c6c6c%11c7c2c2c7c8c3c3c8c9c4c4c9c%10c5c5c1c1c6c6c%11c2c2c7c3c3c8c4c4c9c5c1c1c6c2c3c41'),
 ('carbazole', 'c1ccc2c(c1)[nH]c1ccccc12'), ('purine', 'c1ncc2[nH]cnc2n1'), ('tellurophene', 'c1cc[te]c1'), ('selenophene', 'c1cc[se]c1'),
]: add('aromaticity', smi, name)
add('large', 'O' + 'CCO' * 3333, 'peg10000')                      # 10,000 heavy atoms, a chain
add('large', 'C' * 10000, 'polyethylene10000')
add('large', 'c1ccc2cc3ccccc3cc2c1' * 1 + ''.join('.c1ccc2cc3ccccc3cc2c1' for _ in range(700)), 'anthracenes700')  # 9,800 atoms in fragments
add('large', '.'.join(['CCO'] * 25000), 'ethanol25000')         # a SMILES of 99,999 characters
with open('data/fixtures/hard_molecules.csv', 'w', newline='') as f:
    w = csv.writer(f, lineterminator='\n')
    w.writerow(['id', 'smiles', 'category'])
    for r in rows: w.writerow(r)
print(len(rows), 'molecules', max(len(r[1]) for r in rows), 'longest')
