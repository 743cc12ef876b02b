/**
 * Common passwords of 16 characters or more (shorter ones are refused by length), compared after
 * merchant-passwords.ts folds case and drops everything but letters and digits, so `Password-Password`
 * is `passwordpassword`. A small list: the length rule does most of the work, this catches the usual picks.
 */
export const COMMON_PASSWORDS: readonly string[] = [
  'passwordpassword', 'password12345678', 'password123456789', 'password1234567890', 'passw0rdpassw0rd',
  'mypasswordispassword', 'thisismypassword', 'secretpassword12', 'supersecretpassword', 'verysecretpassword',
  'changemechangeme', 'changemeplease123', 'pleasechangeme123', 'defaultpassword1', 'defaultpassword123',
  'administrator123', 'administrator1234', 'adminadminadmin1', 'adminpassword123', 'rootpassword1234',
  'merchantpassword', 'merchantpassword1', 'merchantpassword123', 'demopassword1234', 'demopasswordnotforproduction',
  'testpassword1234', 'testtesttesttest', 'qwertyuiopasdfgh', 'qwertyuiopasdfghjkl', 'qwertyuiopasdfghjklzxcvbnm',
  'qwertyqwertyqwerty', 'qwerty123456789', 'qwerty1234567890', 'asdfghjklasdfghjkl', 'zxcvbnmzxcvbnm12',
  '1q2w3e4r5t6y7u8i', '1q2w3e4r5t6y7u8i9o0p', 'q1w2e3r4t5y6u7i8', 'abcdefghijklmnop', 'abcdefghijklmnopqrstuvwxyz',
  'abcd1234abcd1234', 'a1b2c3d4e5f6g7h8', 'iloveyouiloveyou', 'iloveyou12345678', 'letmeinletmein12',
  'welcome123456789', 'welcomewelcome12', 'sunshinesunshine', 'football12345678', 'baseball12345678',
  'monkeymonkey1234', 'dragondragon1234', 'princessprincess', 'trustno1trustno1', 'correcthorsebatterystaple',
  'starwarsstarwars', 'shadowshadow1234', 'masterkeymasterkey', 'hashpassword1234', 'paymentgateway123',
];
